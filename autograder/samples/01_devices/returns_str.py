"""Returns 'cuda', not a torch.device."""

# score: 9
# zero: 01-pick-device-hidden-test, 01-pick-device-test
# kind: mistake
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return "cuda" if torch.cuda.is_available() else "cpu"


device = pick_device()
