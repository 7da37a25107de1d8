"""The Day's central mistake, written another way: the tree reduction with a
barrier inside its loop but none between the load into shared memory and the
first step, so a thread may add a neighbour's element before it is there."""


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
    partial = np.zeros(blocks)
    block_sum_kernel[blocks, THREADS](x, partial)
    return float(partial.sum())


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")
