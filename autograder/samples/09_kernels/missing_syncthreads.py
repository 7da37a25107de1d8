"""The tree reduction without a barrier between its steps."""


# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# kind: mistake
# %% 09-reduce
THREADS = 32


@cuda.jit
def block_sum_kernel(x, partial):
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    s = THREADS // 2
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    blocks, threads = launch_config(len(x), THREADS)
    partial = np.zeros(blocks, dtype=np.float64)
    block_sum_kernel[blocks, threads](x, partial)
    return float(partial.sum())
