"""Allocates 64 GB at the top of an answer cell.

The allocation fails inside the kernel's memory limit; the function below it
is never defined, so that task's tests fail, and the others keep their points.
"""
# score: 9
# zero: 03-train-test, 03-train-hidden-test
# %% 03-train
import numpy as _np

_hog = _np.ones(8 * 1024**3)
# <reference>
