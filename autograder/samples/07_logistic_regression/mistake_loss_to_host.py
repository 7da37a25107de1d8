"""fit appends float(loss) to a Python list every epoch: a copy to the host inside the loop."""


# score: 9
# zero: 07-fit-test, 07-fit-hidden-test
# kind: mistake
# %% 07-fit
def predict_proba(X, w, b):
    """Probability of class 1 for every row of X: sigmoid(X @ w + b)."""
    return sigmoid(X @ w + b)


def gradient(X, y, w, b):
    """(dw, db) of the mean binary cross-entropy; dw has shape (d,)."""
    r = predict_proba(X, w, b) - y
    return X.T @ r / len(y), r.mean()


def fit(X, y, lr=0.5, num_epochs=300):
    """Gradient descent from w = zeros (X's module, dtype X.dtype) and b = 0.0.

    Each epoch: record bce_loss(X @ w + b, y) BEFORE the update, then step
    w = w - lr * dw, b = b - lr * db. Returns (w, b, history) with history a 1-D
    array of num_epochs losses on X's device; nothing is copied to the host
    inside the loop.
    """
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(float(bce_loss(X @ w + b, y)))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, xp.asarray(history)


w, b, history = fit(X_train, y_train)
print(f"final training loss {float(history[-1]):.4f}")
plot_loss(host_copy(history), title="Binary cross-entropy during training")
show("07_bce_loss")
