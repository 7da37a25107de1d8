"""Leaves the kernel (os._exit) only when called with two simulated GPUs.

Only the hidden test simulates two GPUs, so the kernel dies there and that
test earns nothing. A new kernel replays the cells before it (tests skipped)
and grading goes on: every other test keeps its points.
"""
# score: 10
# zero: 01-pick-device-hidden-test
# review: yes
# %% 01-pick-device
import os

# <reference>

_pick = pick_device


def pick_device(prefer=None):
    if torch.cuda.device_count() > 1:
        os._exit(0)
    return _pick(prefer)
