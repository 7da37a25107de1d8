"""The cross-entropy computed from probabilities clipped to [1e-7, 1 - 1e-7] (the Keras way): finite, but a confident wrong logit costs 16 instead of 1000."""


# score: 9
# zero: 07-bce-test, 07-bce-hidden-test
# kind: mistake
# %% 07-bce
def bce_loss(logits, y):
    """Mean binary cross-entropy of labels y (0/1) given logits, stable form.

    Returns a 0-d array (or scalar) of the inputs' module.
    """
    xp = array_module(logits)
    eps = 1e-7
    p = xp.clip(sigmoid(logits), eps, 1 - eps)
    return -(y * xp.log(p) + (1 - y) * xp.log(1 - p)).mean()


print(bce_loss(np.array([0.0, 2.0, -3.0]), np.array([1.0, 1.0, 0.0])))
