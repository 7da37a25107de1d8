"""The gradient without the 2 of the square's derivative (X.T @ e / n and mean(e)); fit_gd calls it and still descends, at half speed, so only fit_gd's hidden test (the reference's values) fails too."""


# score: 10
# zero: 06-gradient-test, 06-gradient-hidden-test, 06-fit-gd-hidden-test
# kind: mistake
# %% 06-gradient
def gradient(X, y, w, b):
    """Return (dw, db), the gradient of the MSE of predict(X, w, b) against y.

    dw has shape (d,) and lives on X's device; db is a 0-d array or scalar.
    """
    # Hint: compute the error vector once and reuse it.
    n = X.shape[0]
    e = predict(X, w, b) - y
    dw = X.T @ e / n
    db = e.mean()
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
