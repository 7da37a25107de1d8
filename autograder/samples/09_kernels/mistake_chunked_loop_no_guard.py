"""SAXPY walks the array in chunks of the grid's size, base + cuda.grid(1), with no bounds guard: the last chunk's extra threads write past the end."""


# score: 9
# zero: 09-saxpy-test, 09-saxpy-hidden-test
# kind: mistake
# %% 09-saxpy
@cuda.jit
def saxpy_kernel(a, x, y, out):
    """out[i] = a * x[i] + y[i] for every i, with any grid (grid-stride loop)."""
    for base in range(0, x.shape[0], cuda.gridsize(1)):
        i = base + cuda.grid(1)
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
