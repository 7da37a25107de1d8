"""Leaves the kernel through libc's _exit when called with two simulated GPUs.

As exits_only_in_hidden_tests, but below Python: the hidden test that
simulates two GPUs loses the kernel and its points; a new kernel replays the
cells before it and every other test keeps its points.
"""
# score: 10
# zero: 01-pick-device-hidden-test
# review: yes
# %% 01-pick-device
import ctypes

# <reference>

_pick = pick_device


def pick_device(prefer=None):
    if torch.cuda.device_count() > 1:
        ctypes.CDLL(None)._exit(0)
    return _pick(prefer)
