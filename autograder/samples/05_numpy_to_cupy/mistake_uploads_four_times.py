"""Copies X_host to the device once per statistic (four uploads)."""


# score: 6
# zero: 05-summary-test, 05-summary-hidden-test
# kind: mistake
# %% 05-summary
def summary_statistics(X_host, xp):
    mean = xp.asarray(X_host).mean(axis=0)
    std = xp.asarray(X_host).std(axis=0)
    low = xp.asarray(X_host).min(axis=0)
    high = xp.asarray(X_host).max(axis=0)
    return host_copy(xp.stack([mean, std, low, high]))


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
print(stats.round(3), f"\n{syncs.count} transfer(s) back to the host")
