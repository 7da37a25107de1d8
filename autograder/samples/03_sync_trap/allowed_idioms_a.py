"""As the docstrings say: .item() on the logged epochs, torch.stack then one .cpu(), np.median and np.percentile; and an op_counts that counts prof.events() by name with collections.Counter."""


# score: 15
# kind: allowed
# %% 03-train
def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch + 1) % log_every == 0:
            history.append(loss.item())
    return history


with SyncCounter() as syncs:
    history = train(make_model(), X, y, num_epochs=100, log_every=10)
print(f"{len(history)} losses logged with {syncs.count} synchronisations")
print("first and last:", [round(v, 4) for v in (history[0], history[-1])])
# %% 03-history
def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).cpu()


with SyncCounter() as syncs:
    all_losses = train_history_on_device(make_model(), X, y, num_epochs=100)
print(f"{len(all_losses)} losses with {syncs.count} synchronisation(s)")
# %% 03-timed
def timed(fn, device, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append(time.perf_counter() - start)
    return {
        "times": times,
        "median": float(np.median(times)),
        "spread": float(np.percentile(times, 75) - np.percentile(times, 25)),
    }


matmul_timing = timed(lambda: a @ b, device)
print(f"{size}x{size} matmul on {device}: median {matmul_timing['median'] * 1e3:.3f} "
      f"ms, IQR {matmul_timing['spread'] * 1e3:.3f} ms")


class RecordingDevice:
    """Stands in for a GPU in tests: records every synchronize() call."""

    def __init__(self, log):
        self.log = log

    def synchronize(self):
        self.log.append("sync")


# %% 03-ops
from collections import Counter


def op_counts(fn):
    with torch.profiler.profile() as prof:
        fn()
    calls = Counter(e.name for e in prof.events() if e.name.startswith("aten::"))
    return dict(calls)
