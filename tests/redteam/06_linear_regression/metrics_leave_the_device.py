"""mse returns a Python float (a device-to-host copy) instead of a device scalar.

On NumPy any number will do; on the device the result must stay there. fit_gd,
which logs mse every epoch, now copies to the host every epoch too: its visible
and hidden tests count the transfers.
"""
# score: 10
# zero: 06-metrics-hidden-test, 06-fit-gd-hidden-test, 06-fit-gd-test
# %% 06-metrics
# <reference>

_mse = mse


def mse(y_true, y_pred):
    return float(_mse(y_true, y_pred))
