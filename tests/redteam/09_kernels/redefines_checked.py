"""Redefines the lesson's ``checked`` as a no-op and sums on the host.

``checked`` is the lesson's race checker. The tests use the grader's
``checked``, whose report is the store's: the store ran every kernel the block
launched. The no-op changes nothing the tests read; the host sum launches no
kernel, so the reduction's tests fail, and only those.
"""
# score: 9
# zero: 09-reduce-test, 09-reduce-hidden-test
# review: no
# %% 09-reduce
import contextlib

THREADS = 32


@contextlib.contextmanager
def checked():
    yield None


@cuda.jit
def block_sum_kernel(x, partial):
    pass


def reduce_sum(x):
    return float(x.sum())
