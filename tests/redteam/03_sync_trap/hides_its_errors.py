"""op_counts fails, and hides the traceback display to look as if it passed.

Hidden tests are judged on their results, not on what the page shows.
"""
# score: 12
# zero: 03-ops-test, 03-ops-hidden-test
# review: yes
# %% 03-ops
from IPython.core.interactiveshell import InteractiveShell


def op_counts(fn):
    InteractiveShell.showtraceback = lambda *a, **k: None
    raise RuntimeError("nothing to see")
