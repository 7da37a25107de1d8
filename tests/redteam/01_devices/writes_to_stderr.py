"""A right answer that writes to stderr (warnings) every time it is called.

Stray stderr in a test cell used to cost its points; a cell's verdict now
depends only on whether it passed.
"""
# score: 12
# %% 01-pick-device
import sys
import warnings

# <reference>

_quiet = pick_device


def pick_device(prefer=None):
    print("debug: choosing a device", file=sys.stderr)
    warnings.warn("just saying", stacklevel=1)
    return _quiet(prefer)
