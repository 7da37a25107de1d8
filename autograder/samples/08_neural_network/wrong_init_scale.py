"""Sqrt(1/n) instead of 2/n."""


# score: 10
# zero: 08-init-hidden-test
# kind: mistake
# %% 08-init
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(1.0 / n_in)
        params.append(
            {
                "W": xp.asarray(W.astype(dtype)),
                "b": xp.asarray(np.zeros(n_out, dtype=dtype)),
            }
        )
    return params


def count_params(layer_sizes):
    return int(sum(i * o + o for i, o in zip(layer_sizes[:-1], layer_sizes[1:])))
