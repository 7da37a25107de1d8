"""Count_params without biases."""


# score: 9
# zero: 08-init-hidden-test, 08-init-test
# kind: mistake
# %% 08-init
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        params.append(
            {
                "W": xp.asarray(W.astype(dtype)),
                "b": xp.asarray(np.zeros(n_out, dtype=dtype)),
            }
        )
    return params


def count_params(layer_sizes):
    return sum(a * b for a, b in zip(layer_sizes[:-1], layer_sizes[1:]))
