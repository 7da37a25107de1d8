"""Correct answers in other idioms: a functools.wraps shape check on predict, sums divided by n, `** 0.5`, builtin abs, `X.T @ (2 * e / n)`, a preallocated history, hstack and lstsq returned as a list."""


# score: 15
# kind: allowed
# %% 06-predict
import functools


def check_features(fn):
    """Refuse a w whose length is not X's number of columns."""
    @functools.wraps(fn)
    def wrapper(X, w, b):
        assert X.shape[1] == w.shape[0], f"X has {X.shape[1]} columns, w {w.shape[0]}"
        return fn(X, w, b)
    return wrapper


@check_features
def predict(X, w, b):
    """Return X @ w + b: shape (n,), on X's device (NumPy, CuPy or fake_cupy)."""
    # Hint: one line. Do not convert anything to NumPy.
    return X @ w + b


print(predict(X_test[:3], xp.ones(NUM_FEATURES, dtype=xp.float32), 0.5))
# %% 06-metrics
def mse(y_true, y_pred):
    """Mean squared error, as a 0-d array (or scalar) of the inputs' module."""
    diff = y_true - y_pred
    return (diff * diff).sum() / len(y_true)


def rmse(y_true, y_pred):
    """Square root of the MSE."""
    return mse(y_true, y_pred) ** 0.5


def mae(y_true, y_pred):
    """Mean absolute error."""
    return abs(y_true - y_pred).sum() / len(y_true)


print(mse(np.array([1.0, 2.0]), np.array([2.0, 4.0])))
# %% 06-gradient
def gradient(X, y, w, b):
    """Return (dw, db), the gradient of the MSE of predict(X, w, b) against y.

    dw has shape (d,) and lives on X's device; db is a 0-d array or scalar.
    """
    # Hint: compute the error vector once and reuse it.
    n = len(y)
    r = X @ w + b - y
    g = 2 * r / n  # dMSE / dy_hat for every sample
    return X.T @ g, g.sum()


def numerical_gradient(X, y, w, b, h=1e-6):
    """Central finite differences of the MSE (float64 NumPy, for checking)."""
    X, y, w = (np.asarray(host_copy(a), dtype=np.float64) for a in (X, y, w))

    def loss(w, b):
        return np.mean((X @ w + b - y) ** 2)

    dw = np.zeros_like(w)
    for i in range(len(w)):
        step = np.zeros_like(w)
        step[i] = h
        dw[i] = (loss(w + step, b) - loss(w - step, b)) / (2 * h)
    db = (loss(w, b + h) - loss(w, b - h)) / (2 * h)
    return dw, db


w0 = np.random.default_rng(0).normal(size=NUM_FEATURES)
Xd, yd = data.X_train.astype(np.float64), data.y_train.astype(np.float64)
analytic, numeric = gradient(Xd, yd, w0, 0.3), numerical_gradient(Xd, yd, w0, 0.3)
print("largest difference, analytic vs numerical:",
      float(np.max(np.abs(analytic[0] - numeric[0]))))
# %% 06-fit-gd
import math


def fit_gd(X, y, lr=0.1, num_epochs=500):
    """Fit w, b by full-batch gradient descent on the MSE.

    Start from zeros (w of shape (d,) and dtype X.dtype, created with X's module;
    b = 0.0). Each epoch: record mse(y, predict(X, w, b)) BEFORE the update, then
    (dw, db) = gradient(X, y, w, b); w = w - lr * dw; b = b - lr * db.

    Returns:
        (w, b, history): history is a 1-D array of X's module and device with
        num_epochs MSEs. No value may be copied to the host inside the loop.
    """
    if not math.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a positive number, not {lr}")
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = xp.zeros(num_epochs, dtype=X.dtype)  # filled on the device
    for epoch in range(num_epochs):
        history[epoch] = mse(y, predict(X, w, b))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, history


w_gd, b_gd, history = fit_gd(X_train, y_train)
test_mse_gd = float(mse(y_test, predict(X_test, w_gd, b_gd)))
print(f"gradient descent: test MSE {test_mse_gd:.3f} after {len(history)} epochs")
plot_loss(host_copy(history), log_y=True, title="MSE during gradient descent")
show("06_gd_loss")
# %% 06-closed-form
def fit_closed_form(X, y):
    """Least-squares fit: return (w, b) with w of shape (d,) on X's device."""
    xp = array_module(X)
    A = xp.hstack([X, xp.ones_like(X[:, :1])])
    theta, *_ = xp.linalg.lstsq(A, y, rcond=None)
    return [theta[:-1], theta[-1]]


w_cf, b_cf = fit_closed_form(X_train, y_train)
test_mse_cf = float(mse(y_test, predict(X_test, w_cf, b_cf)))
sk = LinearRegression().fit(data.X_train, data.y_train)
test_mse_sk = float(np.mean((sk.predict(data.X_test) - data.y_test) ** 2))
print(f"test MSE - closed form {test_mse_cf:.3f}, gradient descent "
      f"{test_mse_gd:.3f}, scikit-learn {test_mse_sk:.3f}")
