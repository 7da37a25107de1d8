"""Sends SIGKILL to its own kernel in the third answer cell.

The kernel dies in that cell, so Task 3 defines nothing and earns nothing. A
new kernel replays the cells before it (not the one it died in) and grading
goes on: tasks 1, 2 and 4 keep their points.
"""
# score: 9
# zero: 01-training-memory-test, 01-training-memory-hidden-test
# review: yes
# %% 01-training-memory
import ctypes

ctypes.CDLL(None).kill(ctypes.CDLL(None).getpid(), 9)
