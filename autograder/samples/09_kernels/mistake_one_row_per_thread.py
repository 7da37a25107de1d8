"""The fused kernel handles one row per thread (i = cuda.grid(1), guarded) with no grid-stride loop: rows beyond the grid's threads are never added."""


# score: 10
# zero: 09-fused-hidden-test
# kind: mistake
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    i = cuda.grid(1)
    n, d = X.shape
    if i < n:
        error = b - y[i]
        for j in range(d):
            error += X[i, j] * w[j]
        for j in range(d):
            cuda.atomic.add(dw, j, 2.0 * error * X[i, j] / n)
        cuda.atomic.add(db, 0, 2.0 * error / n)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    """(dw, db) of the MSE with ONE launch of fused_gradient_kernel.

    X is (n, d) float64, y (n,), w (d,), b a number. Returns dw as a (d,)
    float64 array and db as a Python float.
    """
    dw = np.zeros(X.shape[1])
    db = np.zeros(1)
    X_d, y_d, w_d = cuda.to_device(X), cuda.to_device(y), cuda.to_device(w)
    fused_gradient_kernel[blocks, threads_per_block](X_d, y_d, w_d, float(b), dw, db)
    return dw, float(db[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
print(numpy_gradient(X_small, y_small, w_small, b_small))
