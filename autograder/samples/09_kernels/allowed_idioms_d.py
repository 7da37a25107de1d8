"""Correct answers as a newcomer might write them from the text: launch_config
returns a typing.NamedTuple (a pair by another name), and reduce_sum sizes its
grid with a helper under a decorator (functools.cache) before one launch of a
textbook tree reduction."""


# score: 12
# kind: allowed
# %% 09-launch-config
import functools
from typing import NamedTuple


class Launch(NamedTuple):
    blocks: int
    threads_per_block: int


def launch_config(n, threads_per_block=64):
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 1 <= threads_per_block <= 1024:
        raise ValueError(f"threads_per_block must be in 1..1024, got {threads_per_block}")
    return Launch((n + threads_per_block - 1) // threads_per_block, threads_per_block)


print(launch_config(10, 4))
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


@functools.cache
def _blocks_for(n):
    return launch_config(n, THREADS).blocks


def reduce_sum(x):
    partial = np.zeros(_blocks_for(len(x)))
    block_sum_kernel[_blocks_for(len(x)), THREADS](x, partial)
    return float(partial.sum())
