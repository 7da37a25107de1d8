"""A right answer that writes to stderr through sys, every time it is called.

Stray stderr never costs a test its points (a verdict depends only on the
test's record in the referee), and importing sys is not refused: full marks.
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
