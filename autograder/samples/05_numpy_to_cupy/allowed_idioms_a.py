"""As the hints say: array_module and xp.where; isinstance checks with the torch test by name; one xp.asarray, xp.stack and host_copy."""


# score: 9
# kind: allowed
# %% 05-standardize
def standardize(X):
    xp = array_module(X)
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std = xp.where(std == 0, 1, std)
    return ((X - mean) / std).astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
print(standardize(sample).mean(axis=0).round(6), standardize(sample).dtype)
print(type(standardize(fake_cupy.asarray(sample))).__name__)
# %% 05-to-numpy
def to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return x.get()
    if type(x).__module__.startswith("torch"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


print(to_numpy(fake_cupy.arange(3)), to_numpy([1, 2]))
# %% 05-summary
def summary_statistics(X_host, xp):
    X = xp.asarray(X_host)
    stats = xp.stack([X.mean(axis=0), X.std(axis=0), X.min(axis=0), X.max(axis=0)])
    return host_copy(stats)


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
print(stats.round(3), f"\n{syncs.count} transfer(s) back to the host")
