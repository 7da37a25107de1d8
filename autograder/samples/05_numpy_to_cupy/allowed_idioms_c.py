"""keepdims and xp.ones_like; functools.singledispatch for to_numpy; var ** 0.5 in xp.vstack of a tuple, shown with IPython's display."""


# score: 9
# kind: allowed
# %% 05-standardize
def standardize(X):
    xp = array_module(X)
    mu = X.mean(axis=0, keepdims=True)
    scale = X.std(axis=0, keepdims=True)
    scale = xp.where(scale > 0, scale, xp.ones_like(scale))
    out = (X - mu) / scale
    return out if out.dtype == X.dtype else out.astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
print(standardize(sample).mean(axis=0).round(6), standardize(sample).dtype)
print(type(standardize(fake_cupy.asarray(sample))).__name__)
# %% 05-to-numpy
import functools


@functools.singledispatch
def to_numpy(x):
    if type(x).__module__.startswith("torch"):
        return x.detach().cpu().numpy()
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


@to_numpy.register
def _(x: np.ndarray):
    return x


print(to_numpy(fake_cupy.arange(3)), to_numpy([1, 2]))
# %% 05-summary
from IPython.display import display


def summary_statistics(X_host, xp):
    X = xp.asarray(X_host)
    rows = (X.mean(axis=0), X.var(axis=0) ** 0.5, X.min(axis=0), X.max(axis=0))
    return host_copy(xp.vstack(rows))


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
display(stats.round(3))
print(f"{syncs.count} transfer(s) back to the host")
