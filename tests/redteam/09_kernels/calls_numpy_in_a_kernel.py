"""A fused gradient whose kernel calls np.dot: right in the simulator only.

numba's CUDA simulator runs a kernel as Python, so ``np.dot`` there gives the
right numbers. CUDA refuses it. The grader compiles every answer kernel the
tests launched, for the types they launched it with, and fails the tests of a
kernel that does not compile.
"""
# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# review: no
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    n, d = X.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        error = np.dot(X[i], w) + b - y[i]
        scale = 2.0 * error / n
        for j in range(d):
            cuda.atomic.add(dw, j, scale * X[i, j])
        cuda.atomic.add(db, 0, scale)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    X_d, y_d, w_d = cuda.to_device(X), cuda.to_device(y), cuda.to_device(w)
    dw = cuda.to_device(np.zeros(X.shape[1], dtype=np.float64))
    db = cuda.to_device(np.zeros(1, dtype=np.float64))
    fused_gradient_kernel[blocks, threads_per_block](X_d, y_d, w_d, float(b), dw, db)
    return dw.copy_to_host(), float(db.copy_to_host()[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
