"""Std written out by hand with a boolean guard; sys.modules for torch; xp.asarray of device rows, fetched with .get()."""


# score: 9
# kind: allowed
# %% 05-standardize
def standardize(X):
    xp = array_module(X)
    centred = X - X.mean(axis=0)
    std = xp.sqrt((centred**2).mean(axis=0))  # ddof=0
    std = std + (std == 0)  # a zero std becomes 1: constant columns are only centred
    return (centred / std).astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
print(standardize(sample).mean(axis=0).round(6), standardize(sample).dtype)
print(type(standardize(fake_cupy.asarray(sample))).__name__)
# %% 05-to-numpy
import sys


def to_numpy(x):
    torch = sys.modules.get("torch")  # only if something imported it
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x
    if callable(getattr(x, "get", None)):
        return x.get()
    return np.asarray(x)


print(to_numpy(fake_cupy.arange(3)), to_numpy([1, 2]))
# %% 05-summary
def summary_statistics(X_host, xp):
    X = xp.asarray(X_host)  # the one copy to the device
    mean = X.mean(axis=0)
    std = xp.sqrt(((X - mean) ** 2).mean(axis=0))
    rows = xp.asarray([mean, std, xp.amin(X, axis=0), xp.amax(X, axis=0)])
    return rows.get() if hasattr(rows, "get") else rows


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
print(stats.round(3), f"\n{syncs.count} transfer(s) back to the host")
