"""Logged losses kept on the device and fetched once, shown with IPython's display; torch.cat history; a clock that syncs first and functools.wraps; and an op_counts that returns the counts as NumPy integers, sorted by name."""


# score: 15
# kind: allowed
# %% 03-train
from IPython.display import display


def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    on_device = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch + 1) % log_every == 0:
            on_device.append(loss.detach())
    if not on_device:
        return []
    return torch.stack(on_device).tolist()  # one trip home for all of them


with SyncCounter() as syncs:
    history = train(make_model(), X, y, num_epochs=100, log_every=10)
display({"logged": len(history), "syncs": syncs.count})
print("first and last:", [round(v, 4) for v in (history[0], history[-1])])
# %% 03-history
def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = None
    for _ in range(num_epochs):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        step = loss.detach().reshape(1)
        history = step if history is None else torch.cat([history, step])
    return history.cpu()


with SyncCounter() as syncs:
    all_losses = train_history_on_device(make_model(), X, y, num_epochs=100)
print(f"{len(all_losses)} losses with {syncs.count} synchronisation(s)")
# %% 03-timed
import functools


def timed(fn, device, repeat=5, warmup=1):
    def clock():
        synchronize(device)  # never read the clock with work queued
        return time.perf_counter()

    @functools.wraps(fn)
    def waited():
        result = fn()
        synchronize(device)
        return result

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = clock()
        waited()
        times.append(clock() - start)
    q25, q75 = np.percentile(times, [25, 75])
    return {"times": times, "median": float(np.median(times)), "spread": float(q75 - q25)}


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
    with profile(activities=[ProfilerActivity.CPU], record_shapes=False) as prof:
        fn()
    rows = sorted(prof.key_averages(), key=lambda row: row.key)
    return {row.key: np.int64(row.count) for row in rows if row.key.startswith("aten")}
