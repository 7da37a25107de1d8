"""Correct answers in other idioms: math.sqrt for the He scale and xp.asarray(..., dtype=...), a NamedTuple cache, an einsum backward with dA_prev = (W @ dZ.T).T, and a train that builds new parameter dicts each epoch."""


# score: 12
# kind: allowed
# %% 08-init
import math


def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    """Create the parameters of an MLP (see the task)."""
    rng = np.random.default_rng(seed)
    pairs = list(zip(layer_sizes, layer_sizes[1:]))
    return [
        {
            "W": xp.asarray(rng.standard_normal((n_in, n_out)) * math.sqrt(2.0 / n_in),
                            dtype=dtype),
            "b": xp.asarray(np.zeros(n_out), dtype=dtype),
        }
        for n_in, n_out in pairs
    ]


def count_params(layer_sizes):
    """Number of trainable numbers (all weights and biases), as an int."""
    # each output unit has one weight per input, plus its bias
    return sum((n_in + 1) * n_out for n_in, n_out in zip(layer_sizes, layer_sizes[1:]))


params = init_params([2, 8, 1])
print([(p["W"].shape, p["b"].shape) for p in params], count_params([2, 8, 1]))
# %% 08-forward
from typing import Any, NamedTuple


class LayerCache(NamedTuple):
    A_prev: Any
    Z: Any
    A: Any


def forward(params, X, activation="relu"):
    """Run the MLP on X (n, n_inputs).

    Returns:
        (output, cache): output has shape (n, n_outputs); cache is a list with one
        tuple (A_prev, Z, A) per layer, in layer order. Hidden layers use
        `activation`; the last layer's A is Z itself (no activation).
    """
    cache = []
    A = X
    for layer in params[:-1]:
        Z = A @ layer["W"] + layer["b"]
        out = activate(activation, Z)
        cache.append(LayerCache(A, Z, out))
        A = out
    Z = A @ params[-1]["W"] + params[-1]["b"]
    cache.append(LayerCache(A, Z, Z))
    return Z, cache


out, cache = forward(params, xor().X_train)
print(out.ravel(), len(cache))
# %% 08-backward
def backward(params, cache, grad_output, activation="relu"):
    """Backpropagate grad_output = dL/dOutput through the network.

    Returns:
        A list with one dict {"W": dW, "b": db} per layer, in layer order, with
        the shapes of the parameters.
    """
    xp = array_module(grad_output)
    grads = []
    dZ = grad_output
    for i in reversed(range(len(params))):
        A_prev = cache[i][0]
        dW = xp.einsum("ni,no->io", A_prev, dZ)
        db = xp.sum(dZ, axis=0)
        grads.append({"W": dW, "b": db})
        if i == 0:
            break
        dA_prev = (params[i]["W"] @ dZ.T).T
        dZ = dA_prev * activation_grad(activation, cache[i - 1][1], cache[i - 1][2])
    grads.reverse()
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
    losses = []
    for _ in range(num_epochs):
        out, cache = forward(params, X, activation)
        err = out - y
        losses.append(xp.mean(xp.square(err)))
        dout = (2.0 / err.size) * err
        grads = backward(params, cache, dout, activation)
        params = [{"W": p["W"] - lr * g["W"], "b": p["b"] - lr * g["b"]}
                  for p, g in zip(params, grads)]
    return params, xp.stack(losses)


data_xor = xor()
xor_params, xor_history = train(init_params([2, 8, 1], xp=xp),
                                xp.asarray(data_xor.X_train),
                                xp.asarray(data_xor.y_train), lr=0.1,
                                num_epochs=2000, activation="tanh")
xor_out = host_copy(forward(xor_params, xp.asarray(data_xor.X_test), "tanh")[0])
for inputs, output in zip(data_xor.X_test, xor_out):
    print(f"XOR{tuple(int(v) for v in inputs)} = {output[0]:.3f}")
