"""Answers wrongly if a secret of the grader's environment is visible anywhere.

The grading test sets a secret variable in the grader; the kernel sees neither
it in os.environ nor in its own or its parent's /proc environ block, so the
answers stay right.
"""
# score: 12
# review: yes
# %% 01-pick-device
import os

# <reference>


def _leaked():
    seen = repr(dict(os.environ))
    for pid in ("self", str(os.getppid())):
        try:
            seen += open(f"/proc/{pid}/environ", "rb").read().decode("latin-1")
        except OSError:
            pass
    return "{marker}" in seen


if _leaked():
    def pick_device(prefer=None):
        return torch.device("cpu")
