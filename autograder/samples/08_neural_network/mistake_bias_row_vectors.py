"""init_params makes each bias a (1, n_out) row instead of a (n_out,) vector; backward's visible test checks the reference backward's (n_out,) db against finite differences taken on these (1, n_out) biases, so it fails too."""


# score: 8
# zero: 08-init-test, 08-init-hidden-test, 08-backward-test
# kind: mistake
# %% 08-init
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    """Create the parameters of an MLP (see the task)."""
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        b = np.zeros((1, n_out))  # a row, to broadcast over the batch
        params.append({"W": xp.asarray(W.astype(dtype)), "b": xp.asarray(b.astype(dtype))})
    return params


def count_params(layer_sizes):
    """Number of trainable numbers (all weights and biases), as an int."""
    return sum(n_in * n_out + n_out for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]))


params = init_params([2, 8, 1])
print([(p["W"].shape, p["b"].shape) for p in params], count_params([2, 8, 1]))
