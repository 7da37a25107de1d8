"""fit_gd keeps every MSE on the device inside its loop, then prints the
final MSE after the loop: copies to the host in fit_gd, which the docstring
rules out (the caller fetches the history once)."""


# score: 12
# zero: 06-fit-gd-test, 06-fit-gd-hidden-test
# kind: mistake
# %% 06-fit-gd
import sys


def fit_gd(X, y, lr=0.1, num_epochs=500):
    """Fit w, b by full-batch gradient descent on the MSE.

    Start from zeros (w of shape (d,) and dtype X.dtype, created with X's module;
    b = 0.0). Each epoch: record mse(y, predict(X, w, b)) BEFORE the update, then
    (dw, db) = gradient(X, y, w, b); w = w - lr * dw; b = b - lr * db.

    Returns:
        (w, b, history): history is a 1-D array of X's module and device with
        num_epochs MSEs. No value may be copied to the host anywhere in fit_gd
        (not even after the loop): the caller fetches the history once.
    """
    # Hint: collect the MSEs in a list and xp.stack it at the end.
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(mse(y, predict(X, w, b)))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    history = xp.stack(history)
    print(f"fit_gd: MSE {float(history[0]):.4g} -> {float(history[-1]):.4g}",
          file=sys.stderr)
    return w, b, history


w_gd, b_gd, history = fit_gd(X_train, y_train)
test_mse_gd = float(mse(y_test, predict(X_test, w_gd, b_gd)))
print(f"gradient descent: test MSE {test_mse_gd:.3f} after {len(history)} epochs")
plot_loss(host_copy(history), log_y=True, title="MSE during gradient descent")
show("06_gd_loss")
