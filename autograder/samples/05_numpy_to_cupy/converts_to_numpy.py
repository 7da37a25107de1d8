"""Np.asarray on device data."""


# score: 6
# zero: 05-standardize-hidden-test, 05-standardize-test
# kind: mistake
# %% 05-standardize
def standardize(X):
    X = np.asarray(X)
    std = X.std(axis=0)
    return ((X - X.mean(axis=0)) / np.where(std == 0, 1, std)).astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
