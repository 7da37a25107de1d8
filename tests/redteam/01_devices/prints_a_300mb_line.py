"""Prints one 300 MB line.

The message is refused before it reaches the grader's memory; the tests after
it still send their results and pass.
"""
# score: 12
# %% 01-describe-device
# <reference>

print("x" * 300_000_000)
