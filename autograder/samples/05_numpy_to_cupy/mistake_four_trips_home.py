"""Brings each statistic home on its own: four transfers instead of one."""


# score: 6
# zero: 05-summary-test, 05-summary-hidden-test
# kind: mistake
# %% 05-summary
def summary_statistics(X_host, xp):
    X = xp.asarray(X_host)
    return np.stack([
        host_copy(X.mean(axis=0)),
        host_copy(X.std(axis=0)),
        host_copy(X.min(axis=0)),
        host_copy(X.max(axis=0)),
    ])


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
print(stats.round(3), f"\n{syncs.count} transfer(s) back to the host")
