"""Runs fn once to warm up and once under the profiler: the workload runs twice (the visible test counts the calls)."""


# score: 12
# zero: 03-ops-test, 03-ops-hidden-test
# kind: mistake
# %% 03-ops
def op_counts(fn):
    fn()  # a warm-up run
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return {e.key: e.count for e in prof.key_averages() if e.key.startswith("aten::")}
