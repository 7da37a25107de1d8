"""A right crossover_size that returns NumPy integers where sizes were ints.

Both tests say the type differs, and how to fix it (int(...)).
"""
# score: 9
# zero: 03-crossover-test, 03-crossover-hidden-test
# %% 03-crossover
# <reference>

_crossover = crossover_size


def crossover_size(sizes, cpu_times, gpu_times):
    answer = _crossover(sizes, cpu_times, gpu_times)
    return None if answer is None else np.int64(answer)
