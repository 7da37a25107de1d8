"""train keeps its history as a host list of floats (a sync every epoch).

Right values, but a transfer per epoch and a list instead of a device array:
the visible test stops at the list, the hidden test says both.
"""
# score: 9
# zero: 08-train-test, 08-train-hidden-test
# %% 08-train
# <reference>

_train = train


def train(params, X, y, lr=0.1, num_epochs=1000, activation="relu"):
    params, history = _train(params, X, y, lr, num_epochs, activation)
    return params, [float(v) for v in history]
