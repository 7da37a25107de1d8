"""Ignores xp and computes everything with NumPy on the host."""


# score: 6
# zero: 05-summary-test, 05-summary-hidden-test
# kind: mistake
# %% 05-summary
def summary_statistics(X_host, xp):
    return np.stack([
        X_host.mean(axis=0), X_host.std(axis=0), X_host.min(axis=0), X_host.max(axis=0)
    ])


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
print(stats.round(3), f"\n{syncs.count} transfer(s) back to the host")
