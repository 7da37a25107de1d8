"""fit_closed_form solves lstsq on X alone (no column of ones) and returns b = 0."""


# score: 12
# zero: 06-closed-form-test, 06-closed-form-hidden-test
# kind: mistake
# %% 06-closed-form
def fit_closed_form(X, y):
    """Least-squares fit: return (w, b) with w of shape (d,) on X's device."""
    xp = array_module(X)
    w = xp.linalg.lstsq(X, y, rcond=None)[0]
    return w, 0.0


w_cf, b_cf = fit_closed_form(X_train, y_train)
test_mse_cf = float(mse(y_test, predict(X_test, w_cf, b_cf)))
sk = LinearRegression().fit(data.X_train, data.y_train)
test_mse_sk = float(np.mean((sk.predict(data.X_test) - data.y_test) ** 2))
print(f"test MSE - closed form {test_mse_cf:.3f}, gradient descent "
      f"{test_mse_gd:.3f}, scikit-learn {test_mse_sk:.3f}")
