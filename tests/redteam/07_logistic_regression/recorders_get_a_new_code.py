"""`>` where `>=` is written, plus every `check_*` function of the kernel's
`course.checks` given a body that checks nothing (`__code__` replaced: the
same objects, so an identity check would not notice).

The checks that decide points are the referee's own recorders, in the
grader's process: the kernel's copies are never called by a test, so the
new bodies change nothing and the mistake loses its points as without them.
"""
# score: 9
# zero: 07-scores-test, 07-scores-hidden-test
# review: no
# %% 07-scores
import course.checks


def _agree(*args, **kwargs):
    return None


for _name in dir(course.checks):
    _f = getattr(course.checks, _name)
    if _name.startswith("check_") and hasattr(_f, "__code__"):
        _f.__code__ = _agree.__code__  # same function object, new body


def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    pred = proba > threshold
    true = y_true == 1
    tp = float((pred & true).sum())
    n_pred = float(pred.sum())
    n_true = float(true.sum())
    return {
        "accuracy": float((pred == true).mean()),
        "precision": tp / n_pred if n_pred else 0.0,
        "recall": tp / n_true if n_true else 0.0,
    }


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
print({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")
