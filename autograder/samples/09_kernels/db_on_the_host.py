"""The fused kernel adds into dw only; db is computed by NumPy on the host."""


# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# kind: mistake
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    n, d = X.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        error = b - y[i]
        for j in range(d):
            error += X[i, j] * w[j]
        scale = 2.0 * error / n
        for j in range(d):
            cuda.atomic.add(dw, j, scale * X[i, j])


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    dw = np.zeros(X.shape[1], dtype=np.float64)
    db = np.zeros(1, dtype=np.float64)
    fused_gradient_kernel[blocks, threads_per_block](X, y, w, float(b), dw, db)
    return dw, float(2.0 * np.mean(X @ w + b - y))
