"""float16 on every GPU, even those with bfloat16."""


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
        major, minor = torch.cuda.get_device_capability(device)
        return 6 <= major <= 10 and minor == 0
    raise ValueError("cpu, cuda or mps")


def pick_dtype(device):
    device = torch.device(device)
    if device.type == "cuda":
        return torch.float16
    if device.type in ("cpu", "mps"):
        return torch.float32
    raise ValueError("cpu, cuda or mps")
