"""Uses the course library's own pick_device as the answer to Task 1.1.

The library's helper does a different job than the task asks for (it takes no
preference and never raises): the visible and the hidden test both fail.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")
from course.devices import pick_device

device = pick_device()
