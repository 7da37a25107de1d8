"""init_params creates np.random.default_rng(seed) again for every layer, so every layer starts the same random stream instead of continuing it."""


# score: 10
# zero: 08-init-hidden-test
# kind: mistake
# %% 08-init
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    """Create the parameters of an MLP (see the task)."""
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        rng = np.random.default_rng(seed)
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        params.append({"W": xp.asarray(W.astype(dtype)),
                       "b": xp.asarray(np.zeros(n_out, dtype=dtype))})
    return params


def count_params(layer_sizes):
    """Number of trainable numbers (all weights and biases), as an int."""
    return sum(n_in * n_out + n_out for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]))


params = init_params([2, 8, 1])
print([(p["W"].shape, p["b"].shape) for p in params], count_params([2, 8, 1]))
