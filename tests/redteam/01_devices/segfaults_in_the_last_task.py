"""Crashes the interpreter (a null pointer read) in the last answer cell.

The tests that finished before the crash keep their points; the cell that
died is named, and the tests after it did not run.
"""
# score: 9
# zero: 01-largest-matrix-test, 01-largest-matrix-hidden-test
# review: yes
# %% 01-largest-matrix
import ctypes

ctypes.string_at(0)
