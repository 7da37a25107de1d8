"""float64_is_fast decided by the GPU's name: an A30 (8.0) is called slow."""


# score: 6
# zero: 10-dtype-test, 10-dtype-hidden-test
# kind: mistake
# %% 10-dtype
# <reference>

_by_capability = float64_is_fast


def float64_is_fast(device):
    device = torch.device(device)
    if device.type != "cuda":
        return _by_capability(device)
    name = torch.cuda.get_device_name(device)
    return any(part in name for part in ("P100", "V100", "A100", "H100", "H200", "B200"))
