"""predict returns X @ w and forgets the bias; the reference gradient and fit_gd call this predict, so the gradient's tests and fit_gd's hidden test (the reference's values) fail too."""


# score: 7
# zero: 06-predict-test, 06-predict-hidden-test, 06-gradient-test, 06-gradient-hidden-test, 06-fit-gd-hidden-test
# kind: mistake
# %% 06-predict
def predict(X, w, b):
    """Return X @ w + b: shape (n,), on X's device (NumPy, CuPy or fake_cupy)."""
    # Hint: one line. Do not convert anything to NumPy.
    return X @ w


print(predict(X_test[:3], xp.ones(NUM_FEATURES, dtype=xp.float32), 0.5))
