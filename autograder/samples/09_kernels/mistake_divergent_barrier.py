"""The reduction calls cuda.syncthreads() inside "if t < s:", a barrier only some threads of the block reach."""


# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# kind: mistake
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
            cuda.syncthreads()  # wait for the others before the next step
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    """The sum of a 1-D float64 array x: one launch of block_sum_kernel with
    THREADS threads per block, then the partial sums added on the host."""
    blocks, threads = launch_config(len(x), THREADS)
    partial = np.zeros(blocks, dtype=np.float64)
    block_sum_kernel[blocks, threads](x, partial)
    return float(partial.sum())


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
