"""Hands Task 1.1 to the library's choose_device, plus two lines.

The library takes no preference, so that no call of it chooses between a
preference and a fallback: the answer ignores "mps" and "cuda" preferences,
passes the visible test on a CPU, and fails the hidden one.
"""
# score: 10
# zero: 01-pick-device-hidden-test
# %% 01-pick-device
import torch

from course.devices import choose_device

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError(f"prefer must be one of {VALID_PREFERENCES}, not {prefer!r}")
    if prefer == "cpu":
        return torch.device("cpu")
    return torch.device(choose_device().device.type)


device = pick_device()
