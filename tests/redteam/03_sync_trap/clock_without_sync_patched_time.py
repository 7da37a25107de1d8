"""Reads the clock while work is still pending (the last sync comes too late).

The test's own bookkeeping of the clock and the work is compared with the
reference's in the grader: the early read shows.
"""
# score: 13
# zero: 03-timed-hidden-test
# %% 03-timed
# <reference>


def timed(fn, device, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        synchronize(device)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        synchronize(device)
    return {
        "times": times,
        "median": float(np.median(times)),
        "spread": float(np.percentile(times, 75) - np.percentile(times, 25)),
    }
