"""A fused gradient whose kernel calls np.dot, and then empties the list of
launches the kernel's agent used to send back at the end of a test.

That list was what the CUDA compile step compiled: emptied, nothing was
compiled and the kernel CUDA refuses earned full marks. The compile step now
reads the kernels from the store's own record of what it ran; the kernel's
process holds no list to empty, and the fused tests fail as without the trick.
"""
# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# review: yes
# %% 09-fused
import autograder.grading.referee.agent as _agent


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
    dw = np.zeros(X.shape[1], dtype=np.float64)
    db = np.zeros(1, dtype=np.float64)
    fused_gradient_kernel[blocks, threads_per_block](X, y, w, float(b), dw, db)
    launches = getattr(getattr(_agent, "AGENT", None), "launches", None)
    if isinstance(launches, list):
        launches.clear()
    return dw, float(db[0])
