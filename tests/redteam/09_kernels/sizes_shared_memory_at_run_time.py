"""A reduction whose shared array is sized by the block it runs in.

``cuda.shared.array(cuda.blockDim.x, ...)`` runs in the simulator, where the
size is a Python number; CUDA needs it when the kernel is compiled. The
compile step refuses the kernel, so the reduction's tests fail.
"""
# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# review: no
# %% 09-reduce
THREADS = 32


@cuda.jit
def block_sum_kernel(x, partial):
    shared = cuda.shared.array(cuda.blockDim.x, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    blocks, threads = launch_config(len(x), THREADS)
    partial = np.zeros(blocks, dtype=np.float64)
    block_sum_kernel[blocks, threads](x, partial)
    return float(partial.sum())
