"""Imports is_available by name (from torch.cuda import ...), so the simulated hardware is never seen."""

# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# kind: mistake
# %% 01-pick-device
from torch.backends.mps import is_available as mps_available
from torch.cuda import is_available as cuda_available

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError(f"prefer must be one of {VALID_PREFERENCES}")
    if prefer == "cpu":
        return torch.device("cpu")
    if prefer == "mps" and mps_available():
        return torch.device("mps")
    if cuda_available():
        return torch.device("cuda")
    if mps_available():
        return torch.device("mps")
    return torch.device("cpu")


device = pick_device()
print("This notebook runs on:", device)
