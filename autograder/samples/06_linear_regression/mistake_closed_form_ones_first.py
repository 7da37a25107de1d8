"""fit_closed_form puts the column of ones first but still reads w = theta[:-1], b = theta[-1]."""


# score: 12
# zero: 06-closed-form-test, 06-closed-form-hidden-test
# kind: mistake
# %% 06-closed-form
def fit_closed_form(X, y):
    """Least-squares fit: return (w, b) with w of shape (d,) on X's device."""
    xp = array_module(X)
    n = X.shape[0]
    A = xp.concatenate([xp.ones((n, 1), dtype=X.dtype), X], axis=1)
    theta = xp.linalg.lstsq(A, y, rcond=None)[0]
    return theta[:-1], theta[-1]


w_cf, b_cf = fit_closed_form(X_train, y_train)
test_mse_cf = float(mse(y_test, predict(X_test, w_cf, b_cf)))
sk = LinearRegression().fit(data.X_train, data.y_train)
test_mse_sk = float(np.mean((sk.predict(data.X_test) - data.y_test) ** 2))
print(f"test MSE - closed form {test_mse_cf:.3f}, gradient descent "
      f"{test_mse_gd:.3f}, scikit-learn {test_mse_sk:.3f}")
