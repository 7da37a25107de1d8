"""Divides by the std even where it is 0: constant columns become NaN."""


# score: 7
# zero: 05-standardize-hidden-test
# kind: mistake
# %% 05-standardize
def standardize(X):
    return ((X - X.mean(axis=0)) / X.std(axis=0)).astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
print(standardize(sample).mean(axis=0).round(6), standardize(sample).dtype)
print(type(standardize(fake_cupy.asarray(sample))).__name__)
