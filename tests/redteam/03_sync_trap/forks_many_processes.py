"""Forks thousands of sleeping processes that replace themselves with sleep.

The process cap stops the forks; every one that started is killed when the
notebook ends; the right answers keep their points.
"""
# score: 12
# review: yes
# %% 03-crossover
import os

# <reference>

_started = 0
try:
    for _ in range(3000):
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "600", "{marker}"])
        _started += 1
except OSError as exc:
    print(f"started {_started} before: {type(exc).__name__}")
