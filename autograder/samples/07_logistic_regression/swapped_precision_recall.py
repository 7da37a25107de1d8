"""Precision and recall swapped."""


# score: 9
# zero: 07-scores-test, 07-scores-hidden-test
# kind: mistake
# %% 07-scores
def classification_scores(y_true, proba, threshold=0.5):
    predicted = proba >= threshold
    actual = y_true == 1
    tp = float(host_copy((predicted & actual).sum()))
    pred_pos = float(host_copy(predicted.sum()))
    real_pos = float(host_copy(actual.sum()))
    return {
        "accuracy": float(host_copy((predicted == actual).mean())),
        "precision": tp / real_pos if real_pos else 0.0,
        "recall": tp / pred_pos if pred_pos else 0.0,
    }
