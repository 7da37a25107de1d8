"""Float() every epoch."""


# score: 12
# zero: 06-fit-gd-hidden-test, 06-fit-gd-test
# kind: mistake
# %% 06-fit-gd
def fit_gd(X, y, lr=0.1, num_epochs=500):
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(float(mse(y, predict(X, w, b))))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, np.array(history)


w_gd, b_gd, history = fit_gd(X_train, y_train)
test_mse_gd = float(mse(y_test, predict(X_test, w_gd, b_gd)))
