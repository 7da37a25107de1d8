"""Overflowing sigmoid."""


# score: 9
# zero: 07-sigmoid-hidden-test, 07-sigmoid-test
# kind: mistake
# %% 07-sigmoid
def sigmoid(z):
    return 1 / (1 + array_module(z).exp(-z))
