"""Sums on the host and has the race checker report the launch and barriers a
tree reduction would have.

The student's process replaces ``race_check`` and ``checked`` with a block
that reports one launch and five barriers. Before the store ran the kernels,
the tests entered the kernel's ``checked``: the host sum, with the forged
report, earned full marks (12). Now the tests' ``checked`` is the referee's,
reading the store, which saw no launch: the reduction's tests fail.
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
def _forged():
    yield CheckReport(launches=1, barriers=5)


course.racecheck.race_check = course.cudasim.race_check = _forged
course.cudasim.checked = checked = race_check = _forged


@cuda.jit
def block_sum_kernel(x, partial):
    pass


def reduce_sum(x):
    return float(x.sum())
