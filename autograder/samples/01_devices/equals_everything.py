"""__eq__ always True."""

# score: 9
# zero: 01-pick-device-hidden-test, 01-pick-device-test
# kind: adversarial
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


class _Yes:
    type = "cpu"

    def __eq__(self, other):
        return True

    def __bool__(self):
        return True


def pick_device(prefer=None):
    return _Yes()


device = torch.device("cpu")
