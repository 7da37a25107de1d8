"""An input transformer turns every check into a no-op and makes cells end in 2.

In the student's kernel the visible test then passes. The verdict comes from
the measured run, where the transformer (a top-level statement) is skipped and
the tests run as written: pick_device is wrong, so both its tests fail; the
number a cell ends with earns no partial credit.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# review: yes
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return torch.device("cpu")


def _neuter(lines):
    text = "".join(lines)
    if "check_" not in text:
        return lines
    text = text.replace("check_equal(", "(lambda *a, **k: None)(")
    return [text, "\n2\n"]


get_ipython().input_transformers_post.append(_neuter)
device = pick_device()
