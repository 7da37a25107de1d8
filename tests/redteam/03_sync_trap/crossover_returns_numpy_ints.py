"""A right crossover_size that returns NumPy integers where sizes were ints.

Accepted: a NumPy integer counts as an int, in the visible checks and in the
grader alike (the rule in course.checks), so the answer keeps every point.
"""
# score: 12
# %% 03-crossover
# <reference>

_crossover = crossover_size


def crossover_size(sizes, cpu_times, gpu_times):
    answer = _crossover(sizes, cpu_times, gpu_times)
    return None if answer is None else np.int64(answer)
