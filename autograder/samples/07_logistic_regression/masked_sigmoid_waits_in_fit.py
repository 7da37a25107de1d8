"""A sigmoid filled through boolean masks: right for Task 7.1, but inside fit each mask waits while the GPU counts its elements (CuPy reads the count on the host), so fit makes the host wait every epoch. The visible fit test counts it on the simulated GPU."""


# score: 9
# zero: 07-fit-test, 07-fit-hidden-test
# %% 07-sigmoid
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    xp = array_module(z)
    out = xp.empty_like(z)
    pos = z >= 0
    neg = ~pos
    out[pos] = 1 / (1 + xp.exp(-z[pos]))
    ez = xp.exp(z[neg])
    out[neg] = ez / (1 + ez)
    return out


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))
