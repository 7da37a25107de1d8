"""Correct answers in other idioms: a row-wise sum for predict, xp.square and xp.absolute, the gradient as a mean of per-sample terms, in-place updates, and a fit on centred data."""


# score: 15
# kind: allowed
# %% 06-predict
def predict(X, w, b):
    """Return X @ w + b: shape (n,), on X's device (NumPy, CuPy or fake_cupy)."""
    # Hint: one line. Do not convert anything to NumPy.
    return (X * w).sum(axis=1) + b


print(predict(X_test[:3], xp.ones(NUM_FEATURES, dtype=xp.float32), 0.5))
# %% 06-metrics
def mse(y_true, y_pred):
    """Mean squared error, as a 0-d array (or scalar) of the inputs' module."""
    m = array_module(y_pred)
    return m.square(y_true - y_pred).mean()


def rmse(y_true, y_pred):
    """Square root of the MSE."""
    m = array_module(y_pred)
    return m.sqrt(m.square(y_true - y_pred).mean())


def mae(y_true, y_pred):
    """Mean absolute error."""
    m = array_module(y_pred)
    return m.absolute(y_true - y_pred).mean()


print(mse(np.array([1.0, 2.0]), np.array([2.0, 4.0])))
# %% 06-gradient
def gradient(X, y, w, b):
    """Return (dw, db), the gradient of the MSE of predict(X, w, b) against y.

    dw has shape (d,) and lives on X's device; db is a 0-d array or scalar.
    """
    # Hint: compute the error vector once and reuse it.
    e = predict(X, w, b) - y
    # d/dw of mean(e_i^2) is the mean over samples of 2 * e_i * x_i
    dw = 2.0 * (X * e[:, None]).mean(axis=0)
    db = 2.0 * e.mean()
    return dw, db


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
def fit_gd(X, y, lr=0.1, num_epochs=500):
    """Fit w, b by full-batch gradient descent on the MSE.

    Start from zeros (w of shape (d,) and dtype X.dtype, created with X's module;
    b = 0.0). Each epoch: record mse(y, predict(X, w, b)) BEFORE the update, then
    (dw, db) = gradient(X, y, w, b); w = w - lr * dw; b = b - lr * db.

    Returns:
        (w, b, history): history is a 1-D array of X's module and device with
        num_epochs MSEs. No value may be copied to the host inside the loop.
    """
    # Hint: collect the MSEs in a list and xp.stack it at the end.
    mod = array_module(X)
    w = mod.zeros_like(X[0])
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(mse(y, predict(X, w, b)))
        dw, db = gradient(X, y, w, b)
        w -= lr * dw
        b -= lr * db
    return w, b, mod.stack(history)


w_gd, b_gd, history = fit_gd(X_train, y_train)
test_mse_gd = float(mse(y_test, predict(X_test, w_gd, b_gd)))
print(f"gradient descent: test MSE {test_mse_gd:.3f} after {len(history)} epochs")
plot_loss(host_copy(history), log_y=True, title="MSE during gradient descent")
show("06_gd_loss")
# %% 06-closed-form
def fit_closed_form(X, y):
    """Least-squares fit: return (w, b) with w of shape (d,) on X's device."""
    # Centre the data: the bias then drops out of the least-squares problem.
    mod = array_module(X)
    x_mean = X.mean(axis=0)
    y_mean = y.mean()
    w = mod.linalg.lstsq(X - x_mean, y - y_mean, rcond=None)[0]
    b = y_mean - x_mean @ w
    return w, b


w_cf, b_cf = fit_closed_form(X_train, y_train)
test_mse_cf = float(mse(y_test, predict(X_test, w_cf, b_cf)))
sk = LinearRegression().fit(data.X_train, data.y_train)
test_mse_sk = float(np.mean((sk.predict(data.X_test) - data.y_test) ** 2))
print(f"test MSE - closed form {test_mse_cf:.3f}, gradient descent "
      f"{test_mse_gd:.3f}, scikit-learn {test_mse_sk:.3f}")
