"""backward computes dW = dZ.T @ A_prev, the transpose of the weight's gradient (shape (n_out, n_in)); train calls this backward and fails too."""


# score: 6
# zero: 08-backward-test, 08-backward-hidden-test, 08-train-test, 08-train-hidden-test
# kind: mistake
# %% 08-backward
def backward(params, cache, grad_output, activation="relu"):
    """Backpropagate grad_output = dL/dOutput through the network.

    Returns:
        A list with one dict {"W": dW, "b": db} per layer, in layer order, with
        the shapes of the parameters.
    """
    grads = []
    dZ = grad_output
    for i in range(len(params) - 1, -1, -1):
        A_prev, Z, A = cache[i]
        grads.insert(0, {"W": dZ.T @ A_prev, "b": dZ.sum(axis=0)})
        if i > 0:
            dA_prev = dZ @ params[i]["W"].T
            dZ = dA_prev * activation_grad(activation, cache[i - 1][1], cache[i - 1][2])
    return grads


def numerical_grads(params, X, weights, activation, h=1e-6):
    """Finite differences of L = sum(forward(X) * weights) for every parameter."""
    result = []
    for layer in params:
        layer_grads = {}
        for key, value in layer.items():
            grad = np.zeros_like(value)
            for index in np.ndindex(value.shape):
                old = value[index]
                value[index] = old + h
                up = float((forward(params, X, activation)[0] * weights).sum())
                value[index] = old - h
                down = float((forward(params, X, activation)[0] * weights).sum())
                value[index] = old
                grad[index] = (up - down) / (2 * h)
            layer_grads[key] = grad
        result.append(layer_grads)
    return result


check_ps = init_params([3, 4, 2], seed=1, dtype=np.float64)
X_check = np.random.default_rng(2).normal(size=(5, 3))
weights = np.random.default_rng(3).normal(size=(5, 2))
grads = backward(check_ps, forward(check_ps, X_check, "tanh")[1], weights, "tanh")
numeric = numerical_grads(check_ps, X_check, weights, "tanh")
print("largest difference, backward vs numerical:",
      max(float(np.abs(g[k] - n[k]).max()) for g, n in zip(grads, numeric)
          for k in ("W", "b")))
