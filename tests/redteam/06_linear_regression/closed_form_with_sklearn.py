"""fit_closed_form hands the data to scikit-learn.

Right on NumPy arrays, but scikit-learn cannot take device arrays: the hidden
test, which fits on the device too, fails.
"""
# score: 13
# zero: 06-closed-form-hidden-test
# %% 06-closed-form
def fit_closed_form(X, y):
    model = LinearRegression().fit(X, y)
    xp = array_module(X)
    return xp.asarray(model.coef_), float(model.intercept_)
