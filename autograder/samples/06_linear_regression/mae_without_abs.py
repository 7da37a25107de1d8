"""MAE without abs."""


# score: 12
# zero: 06-metrics-hidden-test, 06-metrics-test
# kind: mistake
# %% 06-metrics
def mse(y_true, y_pred):
    return ((y_true - y_pred) ** 2).mean()


def rmse(y_true, y_pred):
    return array_module(y_true).sqrt(mse(y_true, y_pred))


def mae(y_true, y_pred):
    return (y_true - y_pred).mean()
