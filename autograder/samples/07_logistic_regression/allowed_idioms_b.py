"""Correct answers in other idioms: a tanh sigmoid, the loss as y * softplus(-z) + (1 - y) * softplus(z), the gradient as X.T @ r / n returned as a list, xp.asarray of the history, and the scores with count_nonzero, fetched with .item(), shown with IPython's display."""


# score: 12
# kind: allowed
# %% 07-sigmoid
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    # sigmoid(z) = (1 + tanh(z / 2)) / 2, and tanh never overflows
    return 0.5 * (1 + array_module(z).tanh(0.5 * z))


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))
# %% 07-bce
def softplus(z):
    """log(1 + exp(z)) without overflow."""
    xp = array_module(z)
    return xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))


def bce_loss(logits, y):
    """Mean binary cross-entropy of labels y (0/1) given logits, stable form.

    Returns a 0-d array (or scalar) of the inputs' module.
    """
    # -log(sigmoid(z)) = softplus(-z) and -log(1 - sigmoid(z)) = softplus(z)
    losses = y * softplus(-logits) + (1 - y) * softplus(logits)
    return losses.mean()


print(bce_loss(np.array([0.0, 2.0, -3.0]), np.array([1.0, 1.0, 0.0])))
# %% 07-fit
def predict_proba(X, w, b):
    """Probability of class 1 for every row of X: sigmoid(X @ w + b)."""
    logits = X @ w + b
    return sigmoid(logits)


def gradient(X, y, w, b):
    """(dw, db) of the mean binary cross-entropy; dw has shape (d,)."""
    n = len(y)
    r = predict_proba(X, w, b) - y
    return [X.T @ r / n, r.mean()]


def fit(X, y, lr=0.5, num_epochs=300):
    """Gradient descent from w = zeros (X's module, dtype X.dtype) and b = 0.0.

    Each epoch: record bce_loss(X @ w + b, y) BEFORE the update, then step
    w = w - lr * dw, b = b - lr * db. Returns (w, b, history) with history a 1-D
    array of num_epochs losses on X's device; nothing is copied to the host
    inside the loop.
    """
    xp = array_module(X)
    w, b = xp.zeros(X.shape[1], dtype=X.dtype), 0.0
    losses = []
    for _ in range(num_epochs):
        losses.append(bce_loss(X @ w + b, y))
        dw, db = gradient(X, y, w, b)
        w, b = w - lr * dw, b - lr * db
    return w, b, xp.asarray(losses)


w, b, history = fit(X_train, y_train)
print(f"final training loss {float(history[-1]):.4f}")
plot_loss(host_copy(history), title="Binary cross-entropy during training")
show("07_bce_loss")
# %% 07-scores
from IPython.display import display


def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    xp = array_module(proba)
    predicted = proba >= threshold
    actual = y_true > 0.5
    tp = xp.count_nonzero(predicted & actual).item()
    fp = xp.count_nonzero(predicted & ~actual).item()
    fn = xp.count_nonzero(~predicted & actual).item()
    accuracy = xp.mean(predicted == actual).item()
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {"accuracy": float(accuracy), "precision": float(precision),
            "recall": float(recall)}


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
display({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")
