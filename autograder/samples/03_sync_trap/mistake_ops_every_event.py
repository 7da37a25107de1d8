"""Keeps every row of the profiler's table, ranges and autograd events included, not only the aten operators."""


# score: 12
# zero: 03-ops-test, 03-ops-hidden-test
# kind: mistake
# %% 03-ops
def op_counts(fn):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return {e.key: e.count for e in prof.key_averages()}
