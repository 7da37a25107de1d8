"""`standardize` that reads device data through `.tobytes()` (a copy to the
host that fake CuPy did not count), computes with NumPy and uploads again.
The cell keeps the lesson's lines (the `sample` the tests use).

`.tobytes()` is a counted read now, and the upload is counted too:
standardize's tests fail.
"""
# score: 6
# zero: 05-standardize-test, 05-standardize-hidden-test
# review: no
# %% 05-standardize
# <reference>


def standardize(X):
    xp = array_module(X)
    host = np.frombuffer(X.tobytes(), dtype=X.dtype).reshape(X.shape)
    std = host.std(axis=0)
    out = ((host - host.mean(axis=0)) / np.where(std == 0, 1, std)).astype(X.dtype)
    return out if xp is np else xp.asarray(out)
