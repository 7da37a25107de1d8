"""A blank notebook that patches the shell so no cell can fail.

``run_cell`` is replaced by one that reports success whatever the cell did,
and the traceback display by a no-op. The visible tests then "pass" in the
student's kernel; in the grader's measured run they fail like any blank.
"""
# score: 0
# zero: 01-pick-device-test, 01-pick-device-hidden-test, 01-usable-memory-test, 01-usable-memory-hidden-test, 01-training-memory-test, 01-training-memory-hidden-test, 01-largest-matrix-test, 01-largest-matrix-hidden-test
# review: yes
# %% 01-pick-device
_shell = get_ipython()
_original = _shell.run_cell


def _always_ok(*args, **kwargs):
    result = _original(*args, **kwargs)
    result.error_before_exec = result.error_in_exec = None
    return result


_shell.run_cell = _always_ok
_shell.showtraceback = lambda *a, **k: None
# %% 01-usable-memory
raise NotImplementedError
# %% 01-training-memory
raise NotImplementedError
# %% 01-largest-matrix
raise NotImplementedError
