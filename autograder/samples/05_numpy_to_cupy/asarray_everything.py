"""Np.asarray for all input."""


# score: 6
# zero: 05-to-numpy-hidden-test, 05-to-numpy-test
# kind: mistake
# %% 05-to-numpy
def to_numpy(x):
    return np.asarray(x)
