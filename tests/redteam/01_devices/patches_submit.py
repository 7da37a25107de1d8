"""Replaces course.results.submit so hidden tests send nothing; a wrong answer.

The guard restores submit before each test cell, so only pick_device's own
tests fail: the other hidden tests still send their results and pass.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# review: yes
# %% 01-pick-device
import course.results
course.results.submit = lambda *args, **kwargs: None
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return torch.device("cpu")


device = pick_device()
