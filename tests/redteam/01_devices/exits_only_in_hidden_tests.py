"""Leaves the kernel (os._exit) only when called with two simulated GPUs.

The guard turns os._exit into an exception, so the hidden test fails with it
and every other test still runs and keeps its points.
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
