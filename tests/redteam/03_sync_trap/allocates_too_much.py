"""Allocates 64 GB at the top of an answer cell.

The allocation fails inside the kernel's memory limit with a MemoryError, as
it would in Jupyter: the rest of the cell never runs, so `train` is not
defined and its tests earn nothing. Every other test keeps its points.
"""
# score: 12
# zero: 03-train-test, 03-train-hidden-test
# %% 03-train
import numpy as _np

_hog = _np.ones(8 * 1024**3)
# <reference>
