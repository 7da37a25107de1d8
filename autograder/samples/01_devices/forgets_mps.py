"""No MPS fallback."""

# score: 9
# zero: 01-pick-device-hidden-test, 01-pick-device-test
# kind: mistake
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError(f"prefer must be one of {VALID_PREFERENCES}")
    if prefer != "cpu" and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


device = pick_device()
