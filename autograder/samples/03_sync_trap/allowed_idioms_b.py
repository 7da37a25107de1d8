"""float(loss) on 1-based epochs; a preallocated history sent home with .to("cpu"); statistics.median and a hand-written percentile; and an op_counts that walks key_averages() in a loop with the activities list written out."""


# score: 15
# kind: allowed
# %% 03-train
def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    logged = []
    for epoch in range(1, num_epochs + 1):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % log_every == 0:
            logged.append(float(loss))  # the only place that waits for the device
    return logged


with SyncCounter() as syncs:
    history = train(make_model(), X, y, num_epochs=100, log_every=10)
print(f"{len(history)} losses logged with {syncs.count} synchronisations")
print("first and last:", [round(v, 4) for v in (history[0], history[-1])])
# %% 03-history
def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = torch.empty(num_epochs, dtype=torch.float32, device=X.device)
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history[epoch] = loss.detach()
    return history.to("cpu")


with SyncCounter() as syncs:
    all_losses = train_history_on_device(make_model(), X, y, num_epochs=100)
print(f"{len(all_losses)} losses with {syncs.count} synchronisation(s)")
# %% 03-timed
import statistics


def percentile(values, q):
    """Linear interpolation between the closest ranks (NumPy's default)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def timed(fn, device, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    while len(times) < repeat:
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        stop = time.perf_counter()
        times.append(stop - start)
    return {
        "times": times,
        "median": float(statistics.median(times)),
        "spread": float(percentile(times, 75) - percentile(times, 25)),
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
def op_counts(fn):
    activities = [torch.profiler.ProfilerActivity.CPU]
    profiler = torch.profiler.profile(activities=activities)
    profiler.start()
    try:
        fn()
    finally:
        profiler.stop()
    found = {}
    for row in profiler.key_averages():
        if row.key[:6] == "aten::":
            found[row.key] = int(row.count)
    return found
