"""The fused gradient is right, but X, y and w go to the kernel as NumPy arrays: on a GPU numba copies all five arrays back after the launch."""


# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# kind: mistake
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    n, d = X.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        error = b - y[i]
        for j in range(d):
            error += X[i, j] * w[j]
        scale = 2.0 * error / n
        for j in range(d):
            cuda.atomic.add(dw, j, scale * X[i, j])
        cuda.atomic.add(db, 0, scale)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    dw = np.zeros(X.shape[1], dtype=np.float64)
    db = np.zeros(1, dtype=np.float64)
    fused_gradient_kernel[blocks, threads_per_block](X, y, w, float(b), dw, db)
    return dw, float(db[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
