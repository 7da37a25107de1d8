"""A newcomer's op_counts: the profile kept in a small @dataclass whose method filters key_averages() with a defaultdict: full marks."""


# score: 15
# kind: allowed
# %% 03-ops
from collections import defaultdict
from dataclasses import dataclass


@dataclass
class Profiled:
    prof: object

    def aten_calls(self):
        calls = defaultdict(int)
        for row in self.prof.key_averages():
            if row.key.startswith("aten::"):
                calls[row.key] += row.count
        return dict(calls)


def op_counts(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p:
        fn()
    return Profiled(p).aten_calls()
