"""Uses the course library's own pick_device and describe_device as answers.

The library's helpers do a different job than the tasks ask for: their hidden
tests fail, and so do the visible tests (the library's pick_device takes no
preference; its describe_device has extra keys).
"""
# score: 6
# zero: 01-pick-device-test, 01-pick-device-hidden-test, 01-describe-device-test, 01-describe-device-hidden-test
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")
from course.devices import pick_device

device = pick_device()
# %% 01-describe-device
from course.devices import describe_device

DESCRIPTION_KEYS = ("type", "name", "total_memory_gb", "compute_capability",
                    "multiprocessors")
