"""Correct answers in other idioms: exp(min(z, 0)) / (1 + exp(-|z|)), the loss with logaddexp, an einsum gradient, a history filled in place, and the scores from a @dataclass turned into a dict."""


# score: 12
# kind: allowed
# %% 07-sigmoid
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    xp = array_module(z)
    # the numerator is exp(z) for negative z and exp(0) = 1 otherwise
    return xp.exp(xp.minimum(z, 0)) / (1 + xp.exp(-xp.abs(z)))


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))
# %% 07-bce
def bce_loss(logits, y):
    """Mean binary cross-entropy of labels y (0/1) given logits, stable form.

    Returns a 0-d array (or scalar) of the inputs' module.
    """
    xp = array_module(logits)
    # log(1 + exp(z)) = logaddexp(0, z), computed without overflow
    return xp.mean(xp.logaddexp(0, logits) - logits * y)


print(bce_loss(np.array([0.0, 2.0, -3.0]), np.array([1.0, 1.0, 0.0])))
# %% 07-fit
def predict_proba(X, w, b):
    """Probability of class 1 for every row of X: sigmoid(X @ w + b)."""
    return sigmoid(X @ w + b)


def gradient(X, y, w, b):
    """(dw, db) of the mean binary cross-entropy; dw has shape (d,)."""
    xp = array_module(X)
    n = X.shape[0]
    r = predict_proba(X, w, b) - y
    return xp.einsum("nd,n->d", X, r) / n, r.sum() / n


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
    history = xp.empty(num_epochs, dtype=X.dtype)
    for epoch in range(num_epochs):
        history[epoch] = bce_loss(X @ w + b, y)
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, history


w, b, history = fit(X_train, y_train)
print(f"final training loss {float(history[-1]):.4f}")
plot_loss(host_copy(history), title="Binary cross-entropy during training")
show("07_bce_loss")
# %% 07-scores
from dataclasses import asdict, dataclass


@dataclass
class Scores:
    accuracy: float
    precision: float
    recall: float


def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    # Hint: count true positives, predicted positives and actual positives.
    pred = proba >= threshold
    truth = y_true == 1
    tp = (pred & truth).sum()
    counts = [float(c) for c in (tp, pred.sum(), truth.sum(), (pred == truth).sum())]
    tp, predicted, actual, correct = counts
    scores = Scores(
        accuracy=correct / len(y_true),
        precision=tp / predicted if predicted > 0 else 0.0,
        recall=tp / actual if actual > 0 else 0.0,
    )
    return asdict(scores)


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
print({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")
