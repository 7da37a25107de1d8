"""Correct answers in other idioms: math.ceil for the grid, a while-loop SAXPY with the index written out, a reduction with interleaved addressing whose kernel is defined inside reduce_sum, and a fused kernel with a @cuda.jit(device=True) helper for each row's error, writing dw and db into two slices of one device array read back with one copy."""


# score: 12
# kind: allowed
# %% 09-launch-config
import math


def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    if not (n >= 1 and 1 <= threads_per_block <= 1024):
        raise ValueError("need n >= 1 and 1 <= threads_per_block <= 1024")
    return math.ceil(n / threads_per_block), threads_per_block


print(launch_config(10, 4), launch_config(1_000_000, 256))
# %% 09-saxpy
@cuda.jit
def saxpy_kernel(a, x, y, out):
    """out[i] = a * x[i] + y[i] for every i, with any grid (grid-stride loop)."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    step = cuda.blockDim.x * cuda.gridDim.x
    n = x.size
    while i < n:
        out[i] = a * x[i] + y[i]
        i += step


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


def reduce_sum(x):
    """The sum of a 1-D float64 array x: one launch of block_sum_kernel with
    THREADS threads per block, then the partial sums added on the host."""

    @cuda.jit
    def block_sum_kernel(x, partial):
        shared = cuda.shared.array(THREADS, np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        shared[t] = x[i] if i < x.shape[0] else 0.0
        cuda.syncthreads()
        step = 1
        while step < THREADS:
            if t % (2 * step) == 0:
                shared[t] += shared[t + step]
            cuda.syncthreads()
            step *= 2
        if t == 0:
            partial[cuda.blockIdx.x] = shared[0]

    blocks = (len(x) + THREADS - 1) // THREADS
    partial = np.zeros(blocks)
    block_sum_kernel[blocks, THREADS](x, partial)
    return float(partial.sum())


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
# %% 09-fused
@cuda.jit(device=True)
def row_error(X, y, w, b, i):
    """X[i] @ w + b - y[i], for one row."""
    e = b - y[i]
    for j in range(X.shape[1]):
        e += X[i, j] * w[j]
    return e


@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    n = X.shape[0]
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, n, stride):
        e = row_error(X, y, w, b, i)
        for j in range(X.shape[1]):
            cuda.atomic.add(dw, j, 2.0 * e * X[i, j] / n)
        cuda.atomic.add(db, 0, 2.0 * e / n)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    """(dw, db) of the MSE with ONE launch of fused_gradient_kernel.

    X is (n, d) float64, y (n,), w (d,), b a number. Returns dw as a (d,)
    float64 array and db as a Python float.
    """
    d = X.shape[1]
    out = cuda.to_device(np.zeros(d + 1, dtype=np.float64))
    X_dev = cuda.to_device(np.ascontiguousarray(X))
    fused_gradient_kernel[blocks, threads_per_block](
        X_dev, cuda.to_device(y), cuda.to_device(w), float(b), out[:d], out[d:])
    both = out.copy_to_host()
    return both[:d], float(both[d])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
print(numpy_gradient(X_small, y_small, w_small, b_small))
