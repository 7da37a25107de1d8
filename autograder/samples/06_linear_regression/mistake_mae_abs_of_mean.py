"""mae takes the absolute value of the mean error, not the mean of the absolute errors."""


# score: 12
# zero: 06-metrics-test, 06-metrics-hidden-test
# kind: mistake
# %% 06-metrics
def mse(y_true, y_pred):
    """Mean squared error, as a 0-d array (or scalar) of the inputs' module."""
    xp = array_module(y_true)
    return xp.mean((y_true - y_pred) ** 2)


def rmse(y_true, y_pred):
    """Square root of the MSE."""
    xp = array_module(y_true)
    return xp.sqrt(mse(y_true, y_pred))


def mae(y_true, y_pred):
    """Mean absolute error."""
    xp = array_module(y_true)
    return xp.abs(xp.mean(y_true - y_pred))


print(mse(np.array([1.0, 2.0]), np.array([2.0, 4.0])))
