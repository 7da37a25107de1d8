"""Correct answers in other idioms: rng.normal with the He scale, a forward with an explicit last-layer test, a backward that fills a list from the end, and a train that updates the parameters in place."""


# score: 12
# kind: allowed
# %% 08-init
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    """Create the parameters of an MLP (see the task)."""
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        # normal(0, s) draws the same numbers as standard_normal() * s
        W = rng.normal(0.0, np.sqrt(2.0 / n_in), size=(n_in, n_out))
        b = np.zeros(n_out)
        params.append({"W": xp.asarray(W.astype(dtype)), "b": xp.asarray(b.astype(dtype))})
    return params


def count_params(layer_sizes):
    """Number of trainable numbers (all weights and biases), as an int."""
    total = 0
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        total += n_in * n_out + n_out
    return total


params = init_params([2, 8, 1])
print([(p["W"].shape, p["b"].shape) for p in params], count_params([2, 8, 1]))
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
    last = len(params) - 1
    for i, layer in enumerate(params):
        A_prev = A
        Z = A_prev @ layer["W"] + layer["b"]
        if i == last:
            A = Z
        else:
            A = activate(activation, Z)
        cache.append((A_prev, Z, A))
    return A, cache


out, cache = forward(params, xor().X_train)
print(out.ravel(), len(cache))
# %% 08-backward
def backward(params, cache, grad_output, activation="relu"):
    """Backpropagate grad_output = dL/dOutput through the network.

    Returns:
        A list with one dict {"W": dW, "b": db} per layer, in layer order, with
        the shapes of the parameters.
    """
    grads = [None] * len(params)
    dZ = grad_output  # the last layer is linear
    for i in range(len(params) - 1, -1, -1):
        A_prev, Z, A = cache[i]
        grads[i] = {"W": A_prev.T @ dZ, "b": dZ.sum(axis=0)}
        if i > 0:
            dA_prev = dZ @ params[i]["W"].T
            _, Z_prev, A_prev_out = cache[i - 1]
            dZ = dA_prev * activation_grad(activation, Z_prev, A_prev_out)
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
# %% 08-train
def train(params, X, y, lr=0.1, num_epochs=1000, activation="relu"):
    """Full-batch gradient descent on the MSE (see the task)."""
    xp = array_module(X)
    history = []
    for epoch in range(num_epochs):
        output, cache = forward(params, X, activation)
        diff = output - y
        history.append((diff ** 2).mean())
        grads = backward(params, cache, 2 * diff / diff.size, activation)
        for layer, grad in zip(params, grads):
            layer["W"] -= lr * grad["W"]
            layer["b"] -= lr * grad["b"]
    return params, xp.stack(history)


data_xor = xor()
xor_params, xor_history = train(init_params([2, 8, 1], xp=xp),
                                xp.asarray(data_xor.X_train),
                                xp.asarray(data_xor.y_train), lr=0.1,
                                num_epochs=2000, activation="tanh")
xor_out = host_copy(forward(xor_params, xp.asarray(data_xor.X_test), "tanh")[0])
for inputs, output in zip(data_xor.X_test, xor_out):
    print(f"XOR{tuple(int(v) for v in inputs)} = {output[0]:.3f}")
