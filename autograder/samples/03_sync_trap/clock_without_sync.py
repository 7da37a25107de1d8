"""Timer never synchronises."""


# score: 12
# zero: 03-timed-hidden-test, 03-timed-test
# kind: mistake
# %% 03-timed
def timed(fn, device, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return {
        "times": times,
        "median": float(np.median(times)),
        "spread": float(np.percentile(times, 75) - np.percentile(times, 25)),
    }


class RecordingDevice:
    def __init__(self, log):
        self.log = log

    def synchronize(self):
        self.log.append("sync")
