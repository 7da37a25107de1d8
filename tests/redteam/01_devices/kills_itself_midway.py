"""Sends SIGKILL to its own kernel in the third answer cell (bypassing guards).

Tasks 1 and 2 keep their points; tasks 3 and 4 never run.
"""
# score: 6
# zero: 01-memory-report-test, 01-memory-report-hidden-test, 01-largest-matrix-test, 01-largest-matrix-hidden-test
# review: yes
# %% 01-memory-report
import ctypes

ctypes.CDLL(None).kill(ctypes.CDLL(None).getpid(), 9)
