"""The naive sigmoid after clipping z to [-500, 500]: exp(500) fits in float64 but overflows in float32."""


# score: 10
# zero: 07-sigmoid-hidden-test
# kind: mistake
# %% 07-sigmoid
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    xp = array_module(z)
    z = xp.clip(z, -500, 500)  # exp(500) is about 1e217: no overflow
    return 1 / (1 + xp.exp(-z))


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))
