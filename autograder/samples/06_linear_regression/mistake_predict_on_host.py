"""predict converts X and w with np.asarray "to be safe": fine on NumPy, a TypeError on device arrays; the reference gradient and fit_gd call it on device arrays, so their device tests fail too."""


# score: 8
# zero: 06-predict-hidden-test, 06-gradient-hidden-test, 06-fit-gd-test, 06-fit-gd-hidden-test
# kind: mistake
# %% 06-predict
def predict(X, w, b):
    """Return X @ w + b: shape (n,), on X's device (NumPy, CuPy or fake_cupy)."""
    X = np.asarray(X)
    w = np.asarray(w)
    return X @ w + b


print(predict(X_test[:3], xp.ones(NUM_FEATURES, dtype=xp.float32), 0.5))
