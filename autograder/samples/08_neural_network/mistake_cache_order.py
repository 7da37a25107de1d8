"""forward caches (A, Z, A) instead of (A_prev, Z, A). backward's visible test and train run this forward (its cache feeds the reference backward, which then gets wrong shapes), so their tests fail too; backward's hidden test uses the reference forward and passes."""


# score: 5
# zero: 08-forward-test, 08-forward-hidden-test, 08-backward-test, 08-train-test, 08-train-hidden-test
# kind: mistake
# %% 08-forward
def forward(params, X, activation="relu"):
    """Run the MLP on X (n, n_inputs).

    Returns:
        (output, cache): output has shape (n, n_outputs); cache is a list with one
        tuple (A_prev, Z, A) per layer, in layer order. Hidden layers use
        `activation`; the last layer's A is Z itself (no activation).
    """
    cache = []
    A = X
    for i, layer in enumerate(params):
        Z = A @ layer["W"] + layer["b"]
        A = Z if i == len(params) - 1 else activate(activation, Z)
        cache.append((A, Z, A))
    return A, cache


out, cache = forward(params, xor().X_train)
print(out.ravel(), len(cache))
