"""bce_loss returns the sum over samples, not the mean; fit records it, so fit's hidden test (the reference's history) fails too."""


# score: 7
# zero: 07-bce-test, 07-bce-hidden-test, 07-fit-hidden-test
# kind: mistake
# %% 07-bce
def bce_loss(logits, y):
    """Mean binary cross-entropy of labels y (0/1) given logits, stable form.

    Returns a 0-d array (or scalar) of the inputs' module.
    """
    xp = array_module(logits)
    z = logits
    return (xp.maximum(z, 0) - z * y + xp.log1p(xp.exp(-xp.abs(z)))).sum()


print(bce_loss(np.array([0.0, 2.0, -3.0]), np.array([1.0, 1.0, 0.0])))
