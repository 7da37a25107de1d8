"""forward answers with a 10-million-element array when a hidden test calls it.

The results message is over the size limit and is dropped; the hidden test
has no results and fails. Everything after it still runs and passes.
"""
# score: 10
# zero: 08-forward-hidden-test
# %% 08-forward
# <reference>

_forward = forward


def forward(params, X, activation="relu"):
    if X.shape[0] == 9:  # the hidden test's inputs
        return np.zeros(10_000_000), [None] * len(params)
    return _forward(params, X, activation)
