"""Allocates 64 GB at the top of an answer cell.

The allocation fails inside the main kernel's memory limit. The measured run
skips top-level statements and loads the cell's functions, which are right:
every test keeps its points.
"""
# score: 12
# %% 03-train
import numpy as _np

_hog = _np.ones(8 * 1024**3)
# <reference>
