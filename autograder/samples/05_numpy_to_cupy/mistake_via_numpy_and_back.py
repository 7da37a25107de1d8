"""Brings device data home with .get(), standardises with NumPy, and uploads the result with xp.asarray."""


# score: 6
# zero: 05-standardize-test, 05-standardize-hidden-test
# kind: mistake
# %% 05-standardize
def standardize(X):
    xp = array_module(X)
    host = X.get() if hasattr(X, "get") else X
    std = host.std(axis=0)
    result = (host - host.mean(axis=0)) / np.where(std == 0, 1, std)
    return xp.asarray(result.astype(host.dtype))


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
print(standardize(sample).mean(axis=0).round(6), standardize(sample).dtype)
print(type(standardize(fake_cupy.asarray(sample))).__name__)
