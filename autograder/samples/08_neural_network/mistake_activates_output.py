"""forward applies the activation to the last layer too, so the network's output is never linear. backward's visible test differentiates this forward, and train runs it, so their tests fail too."""


# score: 6
# zero: 08-forward-test, 08-forward-hidden-test, 08-backward-test, 08-train-hidden-test
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
    for layer in params:
        A_prev = A
        Z = A_prev @ layer["W"] + layer["b"]
        A = activate(activation, Z)
        cache.append((A_prev, Z, A))
    return A, cache


out, cache = forward(params, xor().X_train)
print(out.ravel(), len(cache))
