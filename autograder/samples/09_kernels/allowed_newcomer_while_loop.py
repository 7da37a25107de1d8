"""Written from the notebook's text as a newcomer would: math.ceil for the blocks, with a check of each argument, and a SAXPY whose grid-stride loop is a while loop over x.size, its index built from threadIdx, blockIdx and blockDim."""


# score: 12
# kind: allowed
# %% 09-launch-config
import math


def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if threads_per_block < 1 or threads_per_block > 1024:
        raise ValueError("threads_per_block must be between 1 and 1024")
    blocks = math.ceil(n / threads_per_block)
    return blocks, threads_per_block


print(launch_config(10, 4), launch_config(1_000_000, 256))
# %% 09-saxpy
@cuda.jit
def saxpy_kernel(a, x, y, out):
    """out[i] = a * x[i] + y[i] for every i, with any grid (grid-stride loop)."""
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    step = cuda.blockDim.x * cuda.gridDim.x
    while i < x.size:
        out[i] = a * x[i] + y[i]
        i += step


x = np.linspace(0, 1, 11, dtype=np.float32)
y = np.ones(11, dtype=np.float32)
out = np.zeros_like(x)
with checked():
    saxpy_kernel[2, 4](np.float32(2.0), x, y, out)  # 8 threads, 11 elements
print(out)
