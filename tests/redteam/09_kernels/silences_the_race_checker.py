"""Forgets the reduction's barriers and silences the race checker in its process.

The student's process replaces ``race_check`` and ``checked`` with a block
that raises nothing and reports one launch with barriers. Before the store ran
the kernels, the racy reduction ran unchecked in the kernel's simulator, and
its sums happened to come out wrong on the tests' runs (9, by luck). Now each
test's launch runs on the store, race-checked in a process the student cannot
reach, and the missing barrier fails the reduction's tests on every run.
"""
# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# review: no
# %% 09-reduce
import contextlib

import course.cudasim
import course.racecheck
from course.racecheck import CheckReport

THREADS = 32


@contextlib.contextmanager
def _quiet():
    yield CheckReport(launches=1, barriers=5)


course.racecheck.race_check = course.cudasim.race_check = _quiet
course.cudasim.checked = checked = race_check = _quiet


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
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


def reduce_sum(x):
    blocks = (len(x) + THREADS - 1) // THREADS
    partial = np.zeros(blocks, dtype=np.float64)
    block_sum_kernel[blocks, THREADS](x, partial)
    return float(partial.sum())
