"""Written from the notebook's text as a newcomer would: the reduction's
partial sums in a device array (``cuda.device_array``, every element written
by its block's thread 0, read back with ``copy_to_host``), the tree's step
from ``cuda.blockDim.x``, and a fused kernel that adds each thread's rows into
local sums before one atomic add per feature."""


# score: 12
# kind: allowed
# %% 09-reduce
THREADS = 32


@cuda.jit
def block_sum_kernel(x, partial):
    """partial[b] = the sum of the elements block b covers (THREADS of them)."""
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.shape[0]:
        shared[t] = x[i]
    else:
        shared[t] = 0.0
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if t < step:
            shared[t] = shared[t] + shared[t + step]
        cuda.syncthreads()
        step = step // 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    """The sum of a 1-D float64 array x: one launch, then the host adds."""
    blocks = (x.shape[0] + THREADS - 1) // THREADS
    partial = cuda.device_array(blocks, dtype=np.float64)
    block_sum_kernel[blocks, THREADS](x, partial)
    return float(np.sum(partial.copy_to_host()))


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    n = X.shape[0]
    d = X.shape[1]
    mine = cuda.local.array(16, np.float64)
    for j in range(d):
        mine[j] = 0.0
    mine_b = 0.0
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        pred = b
        for j in range(d):
            pred += X[i, j] * w[j]
        g = 2.0 * (pred - y[i]) / n
        for j in range(d):
            mine[j] += g * X[i, j]
        mine_b += g
    for j in range(d):
        cuda.atomic.add(dw, j, mine[j])
    cuda.atomic.add(db, 0, mine_b)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    """(dw, db) of the MSE with ONE launch of fused_gradient_kernel."""
    dw = cuda.to_device(np.zeros(X.shape[1]))
    db = cuda.to_device(np.zeros(1))
    fused_gradient_kernel[blocks, threads_per_block](
        cuda.to_device(X), cuda.to_device(y), cuda.to_device(w), float(b), dw, db
    )
    return dw.copy_to_host(), float(db.copy_to_host()[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
print(numpy_gradient(X_small, y_small, w_small, b_small))
