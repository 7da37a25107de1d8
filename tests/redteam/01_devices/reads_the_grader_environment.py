"""Answers wrongly if a secret of the grader's environment is visible anywhere.

The grading test sets a secret variable in the grader; the kernel sees it
neither in os.environ nor in any process's /proc environ block (its own holds
only allowed variables; the grader's are out of the sandbox's reach), so the
answers stay right.
"""
# score: 12
# review: yes
# %% 01-pick-device
import os

# <reference>


def _leaked():
    seen = repr(dict(os.environ))
    for pid in ["self"] + [p for p in os.listdir("/proc") if p.isdigit()]:
        try:
            seen += open(f"/proc/{pid}/environ", "rb").read().decode("latin-1")
        except OSError:
            pass
    return "{marker}" in seen


if _leaked():
    def pick_device(prefer=None):
        return torch.device("cpu")
