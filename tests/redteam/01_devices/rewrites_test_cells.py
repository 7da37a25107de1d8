"""An input transformer turns every check into a no-op and makes cells end in 2.

The visible test then passes in the kernel (the weaker, in-kernel guarantee:
its one point is earned, and the submission is listed for review), and the
number a cell ends with earns no partial credit. The hidden test's results
are compared in the grader: they are wrong, so it fails.
"""
# score: 10
# zero: 01-pick-device-hidden-test
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
