"""Days 05-08 through nbgrader autograde: full marks, zero, and a real mistake each.

As for Days 02-04, each mistake must cost exactly the test cells named, and every
other cell keeps its points.
"""

from __future__ import annotations

import pytest

from tests.lesson_helpers import check_exact_scores

CONVERTS_TO_NUMPY = """
def standardize(X):
    X = np.asarray(X)
    std = X.std(axis=0)
    return ((X - X.mean(axis=0)) / np.where(std == 0, 1, std)).astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
"""

LOGS_ON_HOST = """
def fit_gd(X, y, lr=0.1, num_epochs=500):
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(float(mse(y, predict(X, w, b))))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, np.array(history)


w_gd, b_gd, history = fit_gd(X_train, y_train)
test_mse_gd = float(mse(y_test, predict(X_test, w_gd, b_gd)))
"""

NAIVE_SIGMOID = """
def sigmoid(z):
    return 1 / (1 + array_module(z).exp(-z))
"""

FORGETS_BIASES = """
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        params.append({"W": xp.asarray(W.astype(dtype)),
                       "b": xp.asarray(np.zeros(n_out, dtype=dtype))})
    return params


def count_params(layer_sizes):
    return sum(a * b for a, b in zip(layer_sizes[:-1], layer_sizes[1:]))
"""

# lesson -> student -> (answers, test cells that must score zero)
CASES = {
    "05_numpy_to_cupy": {
        "converts-to-numpy": (
            {"05-standardize": CONVERTS_TO_NUMPY},
            {"05-standardize-test", "05-standardize-hidden-test"},
        ),
    },
    "06_linear_regression": {
        "logs-on-host": (
            {"06-fit-gd": LOGS_ON_HOST},
            {"06-fit-gd-hidden-test"},
        ),
    },
    "07_logistic_regression": {
        "naive-sigmoid": (
            {"07-sigmoid": NAIVE_SIGMOID},
            {"07-sigmoid-test", "07-sigmoid-hidden-test"},
        ),
    },
    "08_neural_network": {
        "forgets-biases": (
            {"08-init": FORGETS_BIASES},
            {"08-init-test", "08-init-hidden-test"},
        ),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("lesson", sorted(CASES))
def test_reference_blank_and_mistake_score_exactly(lesson, tmp_path):
    check_exact_scores(lesson, CASES[lesson], tmp_path)
