"""Hides tracebacks from inside the graded function."""

# score: 9
# zero: 01-pick-device-hidden-test, 01-pick-device-test
# kind: adversarial
# %% 01-pick-device
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    from IPython.core.interactiveshell import InteractiveShell
    from ipykernel.zmqshell import ZMQInteractiveShell

    InteractiveShell.showtraceback = lambda *a, **k: None
    ZMQInteractiveShell._showtraceback = lambda *a, **k: None
    raise RuntimeError("hidden")


device = torch.device("cpu")
