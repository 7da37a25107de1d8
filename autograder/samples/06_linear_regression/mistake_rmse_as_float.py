"""rmse returns a Python float (a copy to the host) instead of a device array."""


# score: 13
# zero: 06-metrics-hidden-test
# kind: mistake
# %% 06-metrics
def mse(y_true, y_pred):
    """Mean squared error, as a 0-d array (or scalar) of the inputs' module."""
    return ((y_true - y_pred) ** 2).mean()


def rmse(y_true, y_pred):
    """Square root of the MSE."""
    return float(mse(y_true, y_pred)) ** 0.5


def mae(y_true, y_pred):
    """Mean absolute error."""
    return array_module(y_true).abs(y_true - y_pred).mean()


print(mse(np.array([1.0, 2.0]), np.array([2.0, 4.0])))
