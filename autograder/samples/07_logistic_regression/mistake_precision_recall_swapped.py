"""Precision divides the true positives by the actual positives and recall by the predicted ones: the two are swapped."""


# score: 9
# zero: 07-scores-test, 07-scores-hidden-test
# kind: mistake
# %% 07-scores
def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    xp = array_module(proba)
    predicted = (proba >= threshold).astype(y_true.dtype)
    tp = float((predicted * y_true).sum())
    fp = float((predicted * (1 - y_true)).sum())
    fn = float(((1 - predicted) * y_true).sum())
    accuracy = float((predicted == y_true).mean())
    precision = tp / (tp + fn) if tp + fn > 0 else 0.0
    recall = tp / (tp + fp) if tp + fp > 0 else 0.0
    return {"accuracy": accuracy, "precision": precision, "recall": recall}


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
print({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")
