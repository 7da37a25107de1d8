"""fit_gd swaps its kernel's simulated GPU for one in its own process (whose
counts it could then clear), copies the data there and fits on it.

The tests' arrays live in the grader's store: reading them into another
store is a counted download, and the answers, held in the other store, are
not on the simulated GPU the referee reads. Both fit_gd tests fail, and so
does the closed form's hidden test after it (the swap outlives the call).
"""
# score: 10
# zero: 06-fit-gd-test, 06-fit-gd-hidden-test, 06-closed-form-hidden-test
# %% 06-fit-gd
import course.simlink

# <reference>

_fit_gd = fit_gd


def fit_gd(X, y, lr=0.1, num_epochs=500):
    if not hasattr(X, "_link"):
        return _fit_gd(X, y, lr, num_epochs)
    course.simlink._CONNECTION = course.simlink.LocalConnection()
    return _fit_gd(fake_cupy.asarray(X.get()), fake_cupy.asarray(y.get()), lr,
                   num_epochs)
