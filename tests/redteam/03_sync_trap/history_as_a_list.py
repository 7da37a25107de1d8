"""Returns the right values as a list of floats, not a tensor.

The task asks for a tensor: both tests say so.
"""
# score: 12
# zero: 03-history-test, 03-history-hidden-test
# %% 03-history
# <reference>

_history = train_history_on_device


def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    return [float(v) for v in _history(model, X, y, num_epochs, lr)]
