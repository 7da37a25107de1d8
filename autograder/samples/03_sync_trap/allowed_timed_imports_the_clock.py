"""timed reads the clock as `from time import perf_counter` binds it in its cell: the instructions allow it, and the hidden test's clock stands in under that name too."""
# score: 15
# kind: allowed
# %% 03-timed
from time import perf_counter


def timed(fn, device, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        synchronize(device)
        start = perf_counter()
        fn()
        synchronize(device)
        times.append(perf_counter() - start)
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
