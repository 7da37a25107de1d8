"""Correct answers in other idioms: a sigmoid as one xp.where over a shared denominator, the stable loss summed and divided by n, a gradient written as a mean of per-sample terms, xp.stack, and scores from a confusion matrix of counts."""


# score: 12
# kind: allowed
# %% 07-sigmoid
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    xp = array_module(z)
    e = xp.exp(-xp.abs(z))
    return xp.where(z < 0, e, 1.0) / (1 + e)


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))
# %% 07-bce
def bce_loss(logits, y):
    """Mean binary cross-entropy of labels y (0/1) given logits, stable form.

    Returns a 0-d array (or scalar) of the inputs' module.
    """
    xp = array_module(logits)
    z = logits
    per_sample = xp.maximum(z, 0) - z * y + xp.log1p(xp.exp(-xp.abs(z)))
    return per_sample.sum() / z.shape[0]


print(bce_loss(np.array([0.0, 2.0, -3.0]), np.array([1.0, 1.0, 0.0])))
# %% 07-fit
def predict_proba(X, w, b):
    """Probability of class 1 for every row of X: sigmoid(X @ w + b)."""
    return sigmoid(X.dot(w) + b)


def gradient(X, y, w, b):
    """(dw, db) of the mean binary cross-entropy; dw has shape (d,)."""
    residual = sigmoid(X @ w + b) - y
    dw = (X * residual[:, None]).mean(axis=0)
    db = residual.mean()
    return dw, db


def fit(X, y, lr=0.5, num_epochs=300):
    """Gradient descent from w = zeros (X's module, dtype X.dtype) and b = 0.0.

    Each epoch: record bce_loss(X @ w + b, y) BEFORE the update, then step
    w = w - lr * dw, b = b - lr * db. Returns (w, b, history) with history a 1-D
    array of num_epochs losses on X's device; nothing is copied to the host
    inside the loop.
    """
    xp = array_module(X)
    w = xp.zeros_like(X[0])
    b = 0.0
    history = []
    for _ in range(num_epochs):
        z = X @ w + b
        history.append(bce_loss(z, y))
        dw, db = gradient(X, y, w, b)
        w -= lr * dw
        b -= lr * db
    return w, b, xp.stack(history)


w, b, history = fit(X_train, y_train)
print(f"final training loss {float(history[-1]):.4f}")
plot_loss(host_copy(history), title="Binary cross-entropy during training")
show("07_bce_loss")
# %% 07-scores
def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    xp = array_module(y_true)
    pred = (proba >= threshold).astype(y_true.dtype)
    tp = (pred * y_true).sum()
    fp = (pred * (1 - y_true)).sum()
    fn = ((1 - pred) * y_true).sum()
    tn = ((1 - pred) * (1 - y_true)).sum()
    counts = xp.stack([tp, fp, fn, tn])
    tp, fp, fn, tn = (float(c) for c in host_copy(counts))
    total = tp + fp + fn + tn
    return {
        "accuracy": (tp + tn) / total,
        "precision": tp / (tp + fp) if (tp + fp) > 0 else 0.0,
        "recall": tp / (tp + fn) if (tp + fn) > 0 else 0.0,
    }


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
print({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")
