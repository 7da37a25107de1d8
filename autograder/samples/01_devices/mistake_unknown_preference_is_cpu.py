"""An unknown preference silently gives the CPU instead of raising ValueError."""

# score: 10
# zero: 01-pick-device-hidden-test
# kind: mistake
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    if prefer == "cpu":
        return torch.device("cpu")
    if prefer == "mps" and torch.backends.mps.is_available():
        return torch.device("mps")
    if prefer in (None, "cuda", "mps"):
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
    return torch.device("cpu")  # anything unknown: play safe


device = pick_device()
print("This notebook runs on:", device)
