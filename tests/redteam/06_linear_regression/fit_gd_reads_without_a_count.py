"""fit_gd reads every epoch's MSE with the store's own uncounted read
(`fetch`, the grader's), through the channel its arrays hold.

Only the control channel, which the kernel never holds, may read without a
count: the store refuses the kernel's request, fit_gd raises, and both fit_gd
tests fail.
"""
# score: 12
# zero: 06-fit-gd-test, 06-fit-gd-hidden-test
# %% 06-fit-gd
# <reference>

_fit_gd = fit_gd


def fit_gd(X, y, lr=0.1, num_epochs=500):
    w, b, history = _fit_gd(X, y, lr, num_epochs)
    if hasattr(history, "_link"):
        for value in history:
            value._link.request(["fetch", value._key])
    return w, b, history
