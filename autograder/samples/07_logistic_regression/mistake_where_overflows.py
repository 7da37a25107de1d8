"""The sigmoid picks its branch with xp.where, but both branches are computed on every z first: exp(-z) and exp(z) overflow (with a warning) for large |z|."""


# score: 9
# zero: 07-sigmoid-test, 07-sigmoid-hidden-test
# kind: mistake
# %% 07-sigmoid
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    xp = array_module(z)
    return xp.where(z >= 0, 1 / (1 + xp.exp(-z)), xp.exp(z) / (1 + xp.exp(z)))


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))
