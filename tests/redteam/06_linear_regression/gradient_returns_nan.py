"""gradient returns NaN where the data is fine.

NaN never equals a number: both tests fail, and fit_gd, which uses gradient,
fails too.
"""
# score: 9
# zero: 06-gradient-test, 06-gradient-hidden-test, 06-fit-gd-test, 06-fit-gd-hidden-test
# %% 06-gradient
# <reference>

_gradient = gradient


def gradient(X, y, w, b):
    dw, db = _gradient(X, y, w, b)
    return dw * float("nan"), db
