"""crossover_size fails, and hides the traceback display to look as if it passed.

Hidden tests are judged on their results, not on what the page shows.
"""
# score: 9
# zero: 03-crossover-test, 03-crossover-hidden-test
# review: yes
# %% 03-crossover
from IPython.core.interactiveshell import InteractiveShell


def crossover_size(sizes, cpu_times, gpu_times):
    InteractiveShell.showtraceback = lambda *a, **k: None
    raise RuntimeError("nothing to see")
