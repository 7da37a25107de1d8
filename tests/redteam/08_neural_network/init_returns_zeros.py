"""init_params returns zeros of the right shapes and dtypes.

The visible test checks shapes; the hidden test compares values. A network
cannot learn XOR from zeros either, so both of train's tests fail too.
"""
# score: 7
# zero: 08-init-hidden-test, 08-train-test, 08-train-hidden-test
# %% 08-init
# <reference>


def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    return [{"W": xp.zeros((i, o), dtype=dtype), "b": xp.zeros(o, dtype=dtype)}
            for i, o in zip(layer_sizes[:-1], layer_sizes[1:])]
