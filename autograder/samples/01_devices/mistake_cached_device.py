"""Caches pick_device with functools.lru_cache: the first answer sticks when the hardware changes."""

# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# kind: mistake
# %% 01-pick-device
import functools

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


@functools.lru_cache(maxsize=None)  # the hardware does not change, ask only once
def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError(f"prefer must be one of {VALID_PREFERENCES}")
    if prefer == "cuda" and torch.cuda.is_available():
        return torch.device("cuda")
    if prefer == "mps" and torch.backends.mps.is_available():
        return torch.device("mps")
    if prefer == "cpu":
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


device = pick_device()
print("This notebook runs on:", device)
