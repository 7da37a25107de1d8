"""Leaves the kernel (os._exit) only when called with two simulated GPUs.

`os._exit` is a private name: the measured run (the grader's own kernel,
which loads only the answer's definitions) refuses the cell, so both of
pick_device's tests fail and every other test keeps its points. In the main
kernel the guard turns os._exit into an exception.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# review: yes
# %% 01-pick-device
import os

# <reference>

_pick = pick_device


def pick_device(prefer=None):
    if torch.cuda.device_count() > 1:
        os._exit(0)
    return _pick(prefer)
