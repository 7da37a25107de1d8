"""Correct answers in other idioms: an lru_cache'd parameter count, cache entries as lists, a backward over reversed(zip(...)) with dW = (dZ.T @ A_prev).T, and a train wrapped in a functools.wraps logging decorator with a preallocated history."""


# score: 12
# kind: allowed
# %% 08-init
import functools


def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    """Create the parameters of an MLP (see the task)."""
    if len(layer_sizes) < 2:
        raise ValueError("need at least an input and an output size")
    rng = np.random.default_rng(seed)
    params = []
    for k in range(len(layer_sizes) - 1):
        n_in, n_out = layer_sizes[k], layer_sizes[k + 1]
        W = rng.standard_normal((n_in, n_out))
        W *= np.sqrt(2.0 / n_in)
        params.append({"W": xp.asarray(W.astype(dtype)),
                       "b": xp.asarray(np.zeros(n_out, dtype=dtype))})
    return params


@functools.lru_cache(maxsize=None)
def _count(sizes):
    return sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))


def count_params(layer_sizes):
    """Number of trainable numbers (all weights and biases), as an int."""
    return _count(tuple(layer_sizes))


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
    mod = array_module(X)
    cache = []
    A = X
    for i, p in enumerate(params):
        Z = mod.matmul(A, p["W"]) + p["b"]
        A_next = Z if i + 1 == len(params) else activate(activation, Z)
        cache.append([A, Z, A_next])
        A = A_next
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
    grads = []
    dZ = grad_output
    for layer, (A_prev, Z, A) in reversed(list(zip(params, cache))):
        grads.insert(0, {"W": (dZ.T @ A_prev).T, "b": dZ.sum(axis=0)})
        # A_prev is the previous layer's A: its derivative needs that layer's Z
        dA_prev = dZ @ layer["W"].T
        dZ = dA_prev  # fixed below for hidden layers
        index = len(params) - len(grads)
        if index > 0:
            dZ = dA_prev * activation_grad(activation, cache[index - 1][1], A_prev)
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
import functools
import time


def log_run(fn):
    """Print how long each training run took (no value read from the device)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        result = fn(*args, **kwargs)
        print(f"{fn.__name__}: {time.perf_counter() - started:.2f} s")
        return result
    return wrapper


@log_run
def train(params, X, y, lr=0.1, num_epochs=1000, activation="relu"):
    """Full-batch gradient descent on the MSE (see the task)."""
    xp = array_module(X)
    history = xp.zeros(num_epochs, dtype=X.dtype)
    m = y.size
    for epoch in range(num_epochs):
        out, cache = forward(params, X, activation)
        residual = out - y
        history[epoch] = (residual * residual).sum() / m
        grads = backward(params, cache, residual * (2.0 / m), activation)
        params = [{k: p[k] - lr * g[k] for k in ("W", "b")} for p, g in zip(params, grads)]
    return params, history


data_xor = xor()
xor_params, xor_history = train(init_params([2, 8, 1], xp=xp),
                                xp.asarray(data_xor.X_train),
                                xp.asarray(data_xor.y_train), lr=0.1,
                                num_epochs=2000, activation="tanh")
xor_out = host_copy(forward(xor_params, xp.asarray(data_xor.X_test), "tanh")[0])
for inputs, output in zip(data_xor.X_test, xor_out):
    print(f"XOR{tuple(int(v) for v in inputs)} = {output[0]:.3f}")
