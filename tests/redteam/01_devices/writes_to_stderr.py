"""A right answer that writes to stderr through sys, every time it is called.

Stray stderr never costs a test its points (a verdict depends only on the
measured record), but the cell imports sys, which the measured run refuses:
pick_device's tests fail, the others keep their points.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# %% 01-pick-device
import sys
import warnings

# <reference>

_quiet = pick_device


def pick_device(prefer=None):
    print("debug: choosing a device", file=sys.stderr)
    warnings.warn("just saying", stacklevel=1)
    return _quiet(prefer)
