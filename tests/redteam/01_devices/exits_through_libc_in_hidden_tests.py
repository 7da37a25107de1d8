"""Leaves the kernel through libc's _exit when called with two simulated GPUs.

No guard can stop that: the kernel dies in the hidden test. The visible test
before it keeps its point; every later test did not run.
"""
# score: 1
# zero: 01-pick-device-hidden-test, 01-describe-device-test, 01-describe-device-hidden-test, 01-memory-report-test, 01-memory-report-hidden-test, 01-largest-matrix-test, 01-largest-matrix-hidden-test
# review: yes
# %% 01-pick-device
import ctypes

# <reference>

_pick = pick_device


def pick_device(prefer=None):
    if torch.cuda.device_count() > 1:
        ctypes.CDLL(None)._exit(0)
    return _pick(prefer)
