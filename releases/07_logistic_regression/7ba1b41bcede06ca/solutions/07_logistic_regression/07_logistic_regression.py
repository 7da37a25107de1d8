# %% [markdown]
# # Day 07 - Logistic regression from scratch
#
# From predicting numbers to predicting yes or no: is this e-mail spam? Logistic
# regression squashes the linear model's output (a *logit*) into a probability with
# the sigmoid, and learns by minimising the binary cross-entropy. Both functions
# overflow in naive code; this lesson writes them so they never do.
#
# **Learning objectives.** By the end of this notebook you can
#
# - write a numerically stable sigmoid and binary cross-entropy (from logits);
# - derive and implement the gradient, and train by gradient descent with `xp`;
# - turn probabilities into decisions with a threshold, and score them with
#   accuracy, precision and recall;
# - match scikit-learn's `LogisticRegression` on the same data.
#
# **Time.** About 20 minutes of reading and 40 minutes of exercises (4 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it: run it,
# and a failure says what to fix. Grading (and `course check
# 07_logistic_regression.ipynb`, which grades your own copy) also runs *hidden* tests,
# which compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test is a
# good sign, not a guarantee.

# %%
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from course.backend import array_module, backend_name, get_xp, host_copy
from course.checks import check_close, check_equal, check_finite, check_that, check_type
from course.data import binary_classification
from course.fakecupy import fake_cupy
from course.plots import plot_loss, show
from course.sync import SyncCounter
from course.timing import benchmark

xp = get_xp()
NUM_SAMPLES = 2000  # raise it (e.g. 1_000_000) on a GPU box and compare
NUM_FEATURES = 20
data = binary_classification(NUM_SAMPLES, NUM_FEATURES, seed=0)
X_train, y_train = xp.asarray(data.X_train), xp.asarray(data.y_train)
X_test, y_test = xp.asarray(data.X_test), xp.asarray(data.y_test)
print(f"xp = {backend_name(xp)}; {len(data.X_train)} training e-mails, "
      f"{NUM_FEATURES} features, {float(y_train.mean()):.0%} spam")

# %% [markdown]
# ## 1. A sigmoid that never overflows
#
# `sigmoid(z) = 1 / (1 + exp(-z))`. For `z = -1000`, `exp(1000)` overflows to
# infinity (with a warning). The fix: never exponentiate a positive number. With
# `e = exp(-|z|)` (always between 0 and 1):
#
# - for z >= 0: sigmoid(z) = 1 / (1 + e)
# - for z < 0: sigmoid(z) = e / (1 + e)

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    naive = 1 / (1 + np.exp(-np.array([-1000.0, 0.0, 1000.0])))
print("naive sigmoid works here, but exp(1000) overflowed on the way:", naive)

# %% [markdown]
# ### Task 7.1 - `sigmoid`

# %% nbgrader={"grade_id": "07-sigmoid", "solution": true}
def sigmoid(z):
    """Numerically stable sigmoid of an array, on z's device, same dtype.

    Never computes exp of a positive number, so no overflow and no warning.
    """
    # Hint: xp.where(z >= 0, 1 / (1 + e), e / (1 + e)) with e = xp.exp(-xp.abs(z)).
    ### BEGIN SOLUTION
    xp = array_module(z)
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1 / (1 + e), e / (1 + e))
    ### END SOLUTION


print(sigmoid(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])))

# %% nbgrader={"grade": true, "grade_id": "07-sigmoid-test", "points": 1}
"""sigmoid gives 0.5 at 0 and no NaN or warning at +-1000."""
with warnings.catch_warnings():
    warnings.simplefilter("error")  # an overflow warning fails the test
    s = sigmoid(np.array([-1000.0, 0.0, 1000.0]))
check_close(s, [0.0, 0.5, 1.0], atol=1e-12, name="sigmoid([-1000, 0, 1000])")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "07-sigmoid-hidden-test", "points": 2}
"""sigmoid matches the reference everywhere, on every backend (hidden)."""
check_finite(sigmoid(np.array([-1e4, 1e4])), "sigmoid(+-1e4)")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_z = np.concatenate([np.linspace(-50, 50, 201), [-1e308, -1000.0, 1000.0, 1e308]])
_got = {}
for _dtype in (np.float64, np.float32):
    with np.errstate(over="ignore"):
        _zd = _z.astype(_dtype)  # 1e308 becomes inf in float32
    for _mod in (np, fake_cupy):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an overflow warning fails the test
            _value = outcome(sigmoid, _mod.asarray(_zd))
        _label = f"sigmoid on {_mod.__name__}, {np.dtype(_dtype).name}"
        _got[_label] = Approx(_value, rtol=1e-6, atol=1e-7)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Binary cross-entropy from logits
#
# For a label y in {0, 1} and probability p = sigmoid(z), the loss is
# `-(y log p + (1 - y) log(1 - p))`. Computing `p` first loses precision (p rounds
# to exactly 1, and log(1 - p) is -inf). Rewritten on the logit z, it is
#
#     max(z, 0) - z * y + log(1 + exp(-|z|))
#
# which is exact and finite for every z (`xp.log1p` keeps small values precise).
#
# ### Task 7.2 - `bce_loss`

# %% nbgrader={"grade_id": "07-bce", "solution": true}
def bce_loss(logits, y):
    """Mean binary cross-entropy of labels y (0/1) given logits, stable form.

    Returns a 0-d array (or scalar) of the inputs' module.
    """
    ### BEGIN SOLUTION
    xp = array_module(logits)
    return (xp.maximum(logits, 0) - logits * y
            + xp.log1p(xp.exp(-xp.abs(logits)))).mean()
    ### END SOLUTION


print(bce_loss(np.array([0.0, 2.0, -3.0]), np.array([1.0, 1.0, 0.0])))

# %% nbgrader={"grade": true, "grade_id": "07-bce-test", "points": 1}
"""bce_loss is log(2) at logit 0 and finite for extreme logits."""
check_close(bce_loss(np.zeros(4), np.array([0.0, 1.0, 0.0, 1.0])), np.log(2),
            name="bce at logit 0")
extreme = bce_loss(np.array([1000.0, -1000.0]), np.array([0.0, 1.0]))
check_finite(extreme, "bce for wrong predictions with logits +-1000")
check_close(extreme, 1000.0, name="bce for logits +-1000 on the wrong side")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "07-bce-hidden-test", "points": 2}
"""bce_loss matches the reference, including +-1000, on every backend (hidden)."""
check_finite(bce_loss(np.array([1e4]), np.array([1.0])), "bce(1e4, 1)")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_rng = np.random.default_rng(9)
_got = {}
for _scale in (0.1, 5.0, 1000.0):
    _z = _rng.normal(0, _scale, 64)
    _y = _rng.integers(0, 2, 64).astype(np.float64)
    for _mod in (np, fake_cupy):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an overflow warning fails the test
            _value = outcome(bce_loss, _mod.asarray(_z), _mod.asarray(_y))
        _label = f"bce_loss on {_mod.__name__}, logits of scale {_scale}"
        _got[_label] = Approx(_value, rtol=1e-9, strict=False)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. The gradient and training
#
# The cross-entropy's gradient is as simple as the MSE's: with
# `r = sigmoid(X @ w + b) - y`, `dw = X.T @ r / n` and `db = mean(r)`.
#
# ### Task 7.3 - `gradient`, `predict_proba` and `fit`

# %% nbgrader={"grade_id": "07-fit", "solution": true}
def predict_proba(X, w, b):
    """Probability of class 1 for every row of X: sigmoid(X @ w + b)."""
    ### BEGIN SOLUTION
    return sigmoid(X @ w + b)
    ### END SOLUTION


def gradient(X, y, w, b):
    """(dw, db) of the mean binary cross-entropy; dw has shape (d,)."""
    ### BEGIN SOLUTION
    r = predict_proba(X, w, b) - y
    return X.T @ r / X.shape[0], r.mean()
    ### END SOLUTION


def fit(X, y, lr=0.5, num_epochs=300):
    """Gradient descent from w = zeros (X's module, dtype X.dtype) and b = 0.0.

    Each epoch: record bce_loss(X @ w + b, y) BEFORE the update, then step
    w = w - lr * dw, b = b - lr * db. Returns (w, b, history) with history a 1-D
    array of num_epochs losses on X's device; nothing is copied to the host
    inside the loop, and nothing makes the host wait: a boolean mask (z[z >= 0],
    in sigmoid too) waits while the GPU counts its elements, so use xp.where.
    """
    ### BEGIN SOLUTION
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(bce_loss(X @ w + b, y))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, xp.stack(history)
    ### END SOLUTION


w, b, history = fit(X_train, y_train)
print(f"final training loss {float(history[-1]):.4f}")
plot_loss(host_copy(history), title="Binary cross-entropy during training")
show("07_bce_loss")

# %% nbgrader={"grade": true, "grade_id": "07-fit-test", "points": 1}
"""fit lowers the loss; predict_proba gives probabilities of the right shape."""
w1, b1, h1 = fit(data.X_train, data.y_train, num_epochs=20)
check_equal(tuple(h1.shape), (20,), "history.shape")
check_that(float(h1[-1]) < float(h1[0]), "the loss should go down")
p1 = predict_proba(data.X_test, w1, b1)
check_equal(p1.shape, (len(data.X_test),), "predict_proba shape")
check_that(float(p1.min()) >= 0.0 and float(p1.max()) <= 1.0,
           "predict_proba must return probabilities, in [0, 1]")
with SyncCounter() as syncs:  # fake_cupy plays the GPU: every wait is counted
    fit(fake_cupy.asarray(data.X_train), fake_cupy.asarray(data.y_train), 0.5, 3)
check_that(syncs.count == 0,
           "fit made the host wait {count} time(s) on the simulated GPU:\n{summary}\n"
           "Keep the loss on the device, and use xp.where instead of a boolean mask "
           "(in sigmoid too): the host must wait to learn a mask's size.",
           count=syncs.count, summary=syncs.summary())
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "07-fit-hidden-test", "points": 2}
"""gradient and fit match the reference and stay on the device (hidden)."""
check_equal(fit(data.X_train, data.y_train, num_epochs=1)[2].shape, (1,), "history")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, submit
from course.sync import SyncCounter as _SyncCounter

_X = data.X_train.astype(np.float64)
_y = data.y_train.astype(np.float64)
_rng = np.random.default_rng(10)
_w0, _b0 = _rng.normal(size=_X.shape[1]), 0.2
_got = {}
for _mod in (np, fake_cupy):
    _dw, _db = gradient(_mod.asarray(_X), _mod.asarray(_y), _mod.asarray(_w0), _b0)
    _got[f"dw on {_mod.__name__}"] = Approx(_dw, rtol=1e-9, strict=False)
    _got[f"db on {_mod.__name__}"] = Approx(_db, rtol=1e-9, strict=False)
for _lr, _epochs in ((0.5, 15), (0.05, 40)):
    with _SyncCounter() as _syncs:
        _w, _b, _h = fit(fake_cupy.asarray(_X), fake_cupy.asarray(_y), _lr, _epochs)
    _got[f"transfers to the host inside fit (lr={_lr})"] = Bound(_syncs.count, high=0)
    _got[f"w (lr={_lr})"] = Approx(_w, rtol=1e-6, atol=1e-9)
    _got[f"history (lr={_lr})"] = Approx(_h, rtol=1e-6, atol=1e-9, strict=False)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. From probabilities to decisions
#
# A threshold turns probabilities into labels (spam if p >= 0.5). Three scores:
#
# - accuracy: the fraction of correct labels;
# - precision: of the e-mails flagged as spam, the fraction that are spam;
# - recall: of the spam e-mails, the fraction that were flagged.
#
# ### Task 7.4 - `classification_scores`

# %% nbgrader={"grade_id": "07-scores", "solution": true}
def classification_scores(y_true, proba, threshold=0.5):
    """Return a dict of Python floats: "accuracy", "precision", "recall".

    Predicted label: 1 where proba >= threshold, else 0. A precision or recall
    whose denominator is 0 is 0.0. Works for NumPy and device arrays; the three
    numbers are fetched to the host at the end.
    """
    # Hint: count true positives, predicted positives and actual positives.
    ### BEGIN SOLUTION
    predicted = proba >= threshold
    actual = y_true == 1
    true_pos = (predicted & actual).sum()
    counts = array_module(proba).stack([
        (predicted == actual).mean(), true_pos, predicted.sum(), actual.sum()])
    accuracy, tp, pred_pos, real_pos = (float(v) for v in host_copy(counts))
    return {
        "accuracy": accuracy,
        "precision": tp / pred_pos if pred_pos else 0.0,
        "recall": tp / real_pos if real_pos else 0.0,
    }
    ### END SOLUTION


scores = classification_scores(y_test, predict_proba(X_test, w, b))
sk = LogisticRegression(max_iter=1000).fit(data.X_train, data.y_train)
sk_accuracy = sk.score(data.X_test, data.y_test)
print({k: round(v, 4) for k, v in scores.items()})
print(f"scikit-learn's LogisticRegression accuracy: {sk_accuracy:.4f}")

# %% nbgrader={"grade": true, "grade_id": "07-scores-test", "points": 1}
"""classification_scores on a hand-computed example (one probability equals the
threshold, which counts as positive)."""
got = classification_scores(np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0]),
                            np.array([0.9, 0.6, 0.5, 0.1, 0.3, 0.2]))
check_type(got, dict, "classification_scores(...)")
check_close(got["accuracy"], 3 / 6, name="accuracy (proba >= threshold is 1)")
check_close(got["precision"], 2 / 3, name="precision (true pos. / predicted pos.)")
check_close(got["recall"], 2 / 4, name="recall (true pos. / actual pos.)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "07-scores-hidden-test", "points": 2}
"""Scores match the reference; the model is within 2 points of sklearn (hidden)."""
check_type(classification_scores(np.ones(2), np.ones(2)), dict, "scores")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_rng = np.random.default_rng(12)
_got = {}
for _n, _t in ((1, 0.5), (10, 0.5), (100, 0.3), (50, 0.99), (20, 1.5)):
    _y = _rng.integers(0, 2, _n).astype(np.float64)
    _p = _rng.random(_n)
    for _mod in (np, fake_cupy):
        _label = f"classification_scores on {_mod.__name__}, n={_n}, threshold={_t}"
        _got[_label] = Approx(
            outcome(classification_scores, _mod.asarray(_y), _mod.asarray(_p), _t),
            rtol=1e-12)
# Probabilities on a grid, so that some equal the threshold (they count as 1).
for _n, _t in ((12, 0.5), (40, 0.25)):
    _y = _rng.integers(0, 2, _n).astype(np.float64)
    _p = _rng.integers(0, 5, _n) / 4
    _label = f"classification_scores, n={_n}, some probabilities equal to {_t}"
    _got[_label] = Approx(outcome(classification_scores, _y, _p, _t), rtol=1e-12)
# The trained model is within 2 points of scikit-learn's accuracy.
_w, _b, _ = fit(data.X_train, data.y_train)
_acc = classification_scores(data.y_test, predict_proba(data.X_test, _w, _b))
_got["test accuracy of the trained model"] = Approx(_acc["accuracy"], rtol=0, atol=0.02)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. How long does an epoch take?
#
# Measured on this machine with the honest timer (one epoch = one gradient step):

# %%
epoch = benchmark(lambda: gradient(X_train, y_train, w, b), "cupy" if
                  backend_name(xp) == "cupy" else None, repeat=20,
                  label=f"one epoch, {len(data.X_train)} x {NUM_FEATURES}")
print(epoch)
print(f"{len(data.X_train) * NUM_FEATURES * 4 / epoch.median / 1e9:.1f} GFLOP/s "
      "(about 4 floating-point operations per matrix element and epoch)")

# %% [markdown]
# ## Summary
#
# - Stable sigmoid and cross-entropy never exponentiate a positive number.
# - The gradient is `X.T @ (sigmoid(z) - y) / n`: the same shape as linear
#   regression's, with the sigmoid in between.
# - A threshold turns probabilities into decisions; accuracy alone hides whether
#   you miss spam (recall) or flag real mail (precision).
#
# **Open exercises.**
#
# 1. Sweep the threshold from 0.1 to 0.9 and plot precision against recall.
# 2. Set `NUM_SAMPLES = 200_000`. How does time per epoch grow on the CPU? On a GPU?
# 3. What happens to `fit` with `lr = 50`? Why does the loss not explode the way
#    linear regression's did?
