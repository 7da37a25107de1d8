"""backward returns the bias gradients as zeros.

The visible test calls the backward the cell finally defines and compares it
with finite differences: the bias gradients are wrong, so it fails; the hidden
test compares every gradient, and train's hidden test, which learns through
backward, fails too.
"""
# score: 7
# zero: 08-backward-test, 08-backward-hidden-test, 08-train-hidden-test
# %% 08-backward
# <reference>

_backward = backward


def backward(params, cache, dA, activation="relu"):
    grads = _backward(params, cache, dA, activation)
    return [{"W": g["W"], "b": g["b"] * 0} for g in grads]
