"""Leaves the kernel through libc's _exit when called with two simulated GPUs.

The cell imports ctypes: the measured run refuses it, so pick_device's tests
fail. The main kernel may die; it decides nothing, so every later test,
measured in the grader's own kernel, keeps its points.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# review: yes
# %% 01-pick-device
import ctypes

# <reference>

_pick = pick_device


def pick_device(prefer=None):
    if torch.cuda.device_count() > 1:
        ctypes.CDLL(None)._exit(0)
    return _pick(prefer)
