"""classification_scores divides by the number of predicted positives without checking it: a ZeroDivisionError when nothing is predicted positive, where the docstring says 0.0."""


# score: 10
# zero: 07-scores-hidden-test
# kind: mistake
# %% 07-scores
def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    pred = proba >= threshold
    actual = y_true == 1
    tp = int((pred & actual).sum())
    return {
        "accuracy": float((pred == actual).mean()),
        "precision": tp / int(pred.sum()),
        "recall": tp / int(actual.sum()),
    }


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
print({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")
