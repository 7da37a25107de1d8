"""Correct answers that keep their arrays on the device: reduce_sum and
fused_gradient copy their inputs with cuda.to_device, allocate their outputs
with cuda.device_array, and read the results back with copy_to_host (in grading
these are arrays of the simulated GPU's store, written there by the kernel)."""


# score: 12
# kind: allowed
# %% 09-reduce
THREADS = 32  # threads per block of the reduction: a power of two


@cuda.jit
def block_sum_kernel(x, partial):
    """partial[b] = the sum of the elements block b covers (THREADS of them)."""
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    s = THREADS // 2
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    blocks = (len(x) + THREADS - 1) // THREADS
    x_d = cuda.to_device(np.ascontiguousarray(x, dtype=np.float64))
    partial_d = cuda.device_array(blocks, dtype=np.float64)
    block_sum_kernel[blocks, THREADS](x_d, partial_d)
    return float(partial_d.copy_to_host().sum())


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
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
    X_d, y_d, w_d = (cuda.to_device(np.asarray(a, np.float64)) for a in (X, y, w))
    dw_d = cuda.to_device(np.zeros(X.shape[1]))
    db_d = cuda.to_device(np.zeros(1))
    fused_gradient_kernel[blocks, threads_per_block](X_d, y_d, w_d, float(b), dw_d,
                                                     db_d)
    return dw_d.copy_to_host(), float(db_d.copy_to_host()[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
