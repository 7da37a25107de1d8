"""Prints one 30 MB line, far over the notebook's output budget.

The output is dropped (a note says so); the tests after it still send their
results and pass.
"""
# score: 12
# %% 01-describe-device
# <reference>

print("x" * 30_000_000)
