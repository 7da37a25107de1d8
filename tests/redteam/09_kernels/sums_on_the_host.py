"""reduce_sum that adds the numbers on the host, and launches a
block_sum_kernel that only calls syncthreads(): one launch, barriers, the
right sum.

The tests counted launches and barriers and compared the return: full marks.
They now also judge the partial sums as the store's launch wrote them
(added, they must give the sum): the kernel wrote nothing, and the
reduction's tests fail.
"""
# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# review: no
# %% 09-reduce
THREADS = 32


@cuda.jit
def block_sum_kernel(x, partial):
    cuda.syncthreads()


def reduce_sum(x):
    partial = np.zeros(1)
    block_sum_kernel[1, THREADS](x, partial)
    return float(np.sum(x))
