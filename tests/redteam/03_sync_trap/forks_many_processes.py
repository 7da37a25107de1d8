"""Starts thousands of sleeping processes (posix_spawn, as subprocess does).

The process cap stops them; every one that started is killed when the notebook
ends; the right answers keep their points.
"""
# score: 15
# review: yes
# %% 03-ops
import os

# <reference>

_started = 0
try:
    for _ in range(3000):
        os.posix_spawn("/bin/sleep", ["sleep", "600", "{marker}"], dict(os.environ))
        _started += 1
except OSError as exc:
    print(f"started {_started} before: {type(exc).__name__}")
