"""Shows a results payload of its own, with a made-up nonce and forged values.

Only results carrying the test cell's nonce count: the forgery is ignored and
the real (wrong) results fail.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# %% 01-pick-device
from IPython.display import publish_display_data

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    fake = {"version": 1, "grade_id": None, "nonce": "0" * 32,
            "results": {"t": "dict", "v": []}}
    publish_display_data({"application/vnd.gpu-course.results+json": fake})
    return torch.device("cpu")


device = pick_device()
