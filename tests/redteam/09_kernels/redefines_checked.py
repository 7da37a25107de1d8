"""Redefines the lesson's ``checked`` as a no-op and sums on the host.

``checked`` is the lesson's race checker. The tests use the kernel's
``checked``, as the student's own notebook does: the no-op reports nothing,
so the tests make fewer checks than the reference and fail. That costs the
fused task's tests as well, exactly as it does when the student runs them.
"""
# score: 6
# zero: 09-reduce-test, 09-reduce-hidden-test, 09-fused-test, 09-fused-hidden-test
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
