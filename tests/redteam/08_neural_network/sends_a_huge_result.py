"""forward answers with a 2-million-element array when a hidden test calls it.

The results are read as data and fail on their shape; nothing after them is
harmed, and every later test still passes.
"""
# score: 10
# zero: 08-forward-hidden-test
# %% 08-forward
# <reference>

_forward = forward


def forward(params, X, activation="relu"):
    if X.shape[0] == 9:  # the hidden test's inputs
        return np.zeros(2_000_000), [None] * len(params)
    return _forward(params, X, activation)
