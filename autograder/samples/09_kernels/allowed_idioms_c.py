"""Correct answers in other idioms: an lru_cache'd launch_config with divmod, a SAXPY calling a @cuda.jit(device=True) helper, a reduction with a device helper for the guarded load and math.fsum on the host, and a fused gradient whose arrays go through cuda.to_device and copy_to_host."""


# score: 12
# kind: allowed
# %% 09-launch-config
import functools


@functools.lru_cache(maxsize=256)
def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    if n < 1:
        raise ValueError("n < 1")
    if not 1 <= threads_per_block <= 1024:
        raise ValueError("threads_per_block outside 1..1024")
    full, rest = divmod(n, threads_per_block)
    return (full + 1 if rest else full), threads_per_block


print(launch_config(10, 4), launch_config(1_000_000, 256))
# %% 09-saxpy
@cuda.jit(device=True)
def axpy(a, xi, yi):
    return a * xi + yi


@cuda.jit
def saxpy_kernel(a, x, y, out):
    """out[i] = a * x[i] + y[i] for every i, with any grid (grid-stride loop)."""
    for i in range(cuda.grid(1), len(out), cuda.gridsize(1)):
        out[i] = axpy(a, x[i], y[i])


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
import math

THREADS = 32  # threads per block of the reduction: a power of two


@cuda.jit(device=True)
def load_or_zero(x, i):
    if i < x.shape[0]:
        return x[i]
    return 0.0


@cuda.jit
def block_sum_kernel(x, partial):
    """partial[b] = the sum of the elements block b covers (THREADS of them)."""
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = load_or_zero(x, i)
    cuda.syncthreads()
    half = THREADS
    while half > 1:
        half = half // 2
        if t < half:
            shared[t] = shared[t] + shared[t + half]
        cuda.syncthreads()
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    """The sum of a 1-D float64 array x: one launch of block_sum_kernel with
    THREADS threads per block, then the partial sums added on the host."""
    grid = launch_config(len(x), THREADS)
    partial = np.zeros(grid[0], dtype=np.float64)
    block_sum_kernel[grid[0], grid[1]](x, partial)
    return math.fsum(partial)


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
# %% 09-fused
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    n, d = X.shape
    tid = cuda.grid(1)
    nthreads = cuda.gridsize(1)
    i = tid
    while i < n:
        pred = b
        for j in range(d):
            pred += X[i, j] * w[j]
        residual = pred - y[i]
        for j in range(d):
            cuda.atomic.add(dw, j, (2.0 / n) * residual * X[i, j])
        cuda.atomic.add(db, 0, (2.0 / n) * residual)
        i += nthreads


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    """(dw, db) of the MSE with ONE launch of fused_gradient_kernel.

    X is (n, d) float64, y (n,), w (d,), b a number. Returns dw as a (d,)
    float64 array and db as a Python float.
    """
    d_X, d_y, d_w = cuda.to_device(X), cuda.to_device(y), cuda.to_device(w)
    d_dw = cuda.to_device(np.zeros(X.shape[1]))
    d_db = cuda.to_device(np.zeros(1))
    fused_gradient_kernel[blocks, threads_per_block](d_X, d_y, d_w, float(b), d_dw, d_db)
    return d_dw.copy_to_host(), float(d_db.copy_to_host()[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
print(numpy_gradient(X_small, y_small, w_small, b_small))
