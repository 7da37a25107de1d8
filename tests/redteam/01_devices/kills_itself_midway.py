"""Sends SIGKILL to its own kernel in the third answer cell (bypassing guards).

The main kernel dies there, but it decides nothing: the tests run in the
grader's measured kernel, which refuses the cell (it imports ctypes). Task 3
earns nothing; tasks 1, 2 and 4 keep their points.
"""
# score: 9
# zero: 01-memory-report-test, 01-memory-report-hidden-test
# review: yes
# %% 01-memory-report
import ctypes

ctypes.CDLL(None).kill(ctypes.CDLL(None).getpid(), 9)
