"""Redefines the lesson's ``checked`` as a no-op and sums on the host.

``checked`` is the lesson's race checker. Redefined, the kernel's races and
its missing work go unseen in the student's kernel. The measured run refuses
an answer cell that redefines a name the lesson defines, so the reduction's
cell is not loaded and both its tests fail.
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
