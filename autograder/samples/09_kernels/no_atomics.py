"""The fused gradient adds into dw and db with plain +=, not atomics."""


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
        for j in range(d):
            dw[j] += 2.0 * error * X[i, j] / n
        db[0] += 2.0 * error / n


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    dw = np.zeros(X.shape[1], dtype=np.float64)
    db = np.zeros(1, dtype=np.float64)
    fused_gradient_kernel[blocks, threads_per_block](X, y, w, float(b), dw, db)
    return dw, float(db[0])
