"""Correct answers in other idioms: ceiling division as -(-n // t) returned as a list, a for-range grid-stride SAXPY, a tree reduction whose partial sums are added with sum(), and a fused kernel that keeps its own share of db in a register (one atomic per thread for db), its inputs on the device and its outputs NumPy zeros that numba copies up and back."""


# score: 12
# kind: allowed
# %% 09-launch-config
def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if threads_per_block < 1 or threads_per_block > 1024:
        raise ValueError(f"threads_per_block must be in 1..1024, got {threads_per_block}")
    blocks = -(-n // threads_per_block)  # ceiling division
    return [blocks, threads_per_block]


print(launch_config(10, 4), launch_config(1_000_000, 256))
# %% 09-saxpy
@cuda.jit
def saxpy_kernel(a, x, y, out):
    """out[i] = a * x[i] + y[i] for every i, with any grid (grid-stride loop)."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, out.shape[0], stride):
        out[i] = a * x[i] + y[i]


x = np.linspace(0, 1, 11, dtype=np.float32)
y = np.ones(11, dtype=np.float32)
out = np.zeros_like(x)
with checked():
    saxpy_kernel[2, 4](np.float32(2.0), x, y, out)  # 8 threads, 11 elements
print(out)

# How slow is the simulator? 64 elements, once simulated, once in NumPy.
x64, y64 = np.ones(64, np.float32), np.ones(64, np.float32)
started = time.perf_counter()
saxpy_kernel[2, 32](np.float32(2.0), x64, y64, np.zeros_like(x64))
simulated = time.perf_counter() - started
started = time.perf_counter()
for _ in range(1000):
    np.float32(2.0) * x64 + y64
numpy_time = (time.perf_counter() - started) / 1000
if numba_config.ENABLE_CUDASIM:
    print(f"simulated launch of 64 threads: {simulated * 1e3:.1f} ms; NumPy: "
          f"{numpy_time * 1e6:.1f} µs ({simulated / numpy_time:,.0f}x slower, "
          "measured here)")
# %% 09-reduce
THREADS = 32  # threads per block of the reduction: a power of two


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
    s = THREADS // 2
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    """The sum of a 1-D float64 array x: one launch of block_sum_kernel with
    THREADS threads per block, then the partial sums added on the host."""
    blocks, threads = launch_config(x.shape[0], THREADS)
    partial = np.zeros(blocks, dtype=np.float64)
    block_sum_kernel[blocks, threads](x, partial)
    return sum(partial.tolist())


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    n = X.shape[0]
    d = X.shape[1]
    my_db = 0.0
    for row in range(cuda.grid(1), n, cuda.gridsize(1)):
        err = b - y[row]
        for j in range(d):
            err += X[row, j] * w[j]
        g = 2.0 * err / n
        for j in range(d):
            cuda.atomic.add(dw, j, g * X[row, j])
        my_db += g
    cuda.atomic.add(db, 0, my_db)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    """(dw, db) of the MSE with ONE launch of fused_gradient_kernel.

    X is (n, d) float64, y (n,), w (d,), b a number. Returns dw as a (d,)
    float64 array and db as a Python float.
    """
    dw = np.zeros(X.shape[1])
    db = np.zeros(1)
    inputs = [cuda.to_device(array) for array in (X, y, w)]
    fused_gradient_kernel[blocks, threads_per_block](*inputs, float(b), dw, db)
    return dw, db[0].item()


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
print(numpy_gradient(X_small, y_small, w_small, b_small))
