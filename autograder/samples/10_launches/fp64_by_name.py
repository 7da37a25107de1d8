"""float64_is_fast decided by the GPU's name: an A30 (8.0) is called slow."""


# score: 6
# zero: 10-dtype-test, 10-dtype-hidden-test
# kind: mistake
# %% 10-dtype
def float64_is_fast(device):
    device = torch.device(device)
    if device.type == "cpu":
        return True
    if device.type == "mps":
        return False
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        return any(part in name for part in ("P100", "V100", "A100", "H100", "H200",
                                             "B200"))
    raise ValueError(f"no rule for device type {device.type!r}")


def pick_dtype(device):
    device = torch.device(device)
    if device.type in ("cpu", "mps"):
        return torch.float32
    if device.type == "cuda":
        major, _ = torch.cuda.get_device_capability(device)
        if major >= 8:
            return torch.bfloat16
        return torch.float16 if major == 7 else torch.float32
    raise ValueError(f"no rule for device type {device.type!r}")
