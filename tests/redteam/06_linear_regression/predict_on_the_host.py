"""predict copies device data to the host and answers with a NumPy array.

The values are right, but the answer must stay on the device: the hidden test
compares where the result lives, and says so. gradient and fit_gd, built on
predict, then mix host and device arrays and fail on the device too (fit_gd's
visible test runs it on fake_cupy, so it fails there as well).
"""
# score: 8
# zero: 06-predict-hidden-test, 06-gradient-hidden-test, 06-fit-gd-hidden-test, 06-fit-gd-test
# %% 06-predict
def predict(X, w, b):
    return host_copy(X) @ host_copy(w) + b
