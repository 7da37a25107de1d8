"""Crashes the interpreter when train runs its 2,000-epoch XOR check.

The visible test trains XOR first and dies there: train's two tests get
nothing, and the tasks before keep their points (a crash costs only what did
not finish).
"""
# score: 9
# zero: 08-train-test, 08-train-hidden-test
# review: yes
# %% 08-train
import ctypes

# <reference>

_train = train


def train(params, X, y, lr=0.1, num_epochs=1000, activation="relu"):
    if num_epochs == 2000:
        ctypes.string_at(0)
    return _train(params, X, y, lr, num_epochs, activation)
