"""A reduction whose kernel is defined inside `reduce_sum`, its shared array
sized by a value of the enclosing function (known only at run time).

Every kernel a test launches is compiled, nested ones included, with the
values its closure held: CUDA refuses this one, so the reduction's tests fail
with a message that names it.
"""
# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# review: no
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
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    blocks, threads = launch_config(len(x), THREADS)
    size = [threads]

    @cuda.jit
    def inner_sum(x, partial):
        shared = cuda.shared.array(size[0], np.float64)
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

    partial = np.zeros(blocks, dtype=np.float64)
    inner_sum[blocks, threads](x, partial)
    return float(partial.sum())
