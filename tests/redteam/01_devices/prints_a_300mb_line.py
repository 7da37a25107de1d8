"""Prints one 300 MB line, far over the largest message the grader reads.

The grader never holds it: the kernel's output reaches the grader through a
gate that skips the message as it streams past and leaves a notice in its
place. The tests after it still send their results and pass.
"""
# score: 12
# %% 01-usable-memory
# <reference>

print("x" * 300_000_000)
