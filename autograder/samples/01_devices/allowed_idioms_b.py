"""A list of candidates tried in order, and glob for /dev/nvidia*; a binary search sized with dtype.itemsize; the device itself passed to torch.cuda, a loop over named parameters."""

# score: 12
# kind: allowed
# %% 01-pick-device
import glob

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def is_usable(kind):
    """Is a device of this kind there? Asked through torch. every time."""
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return torch.backends.mps.is_available()
    return kind == "cpu"


def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError("prefer must be None, 'cpu', 'cuda' or 'mps'")
    if prefer == "cpu":
        candidates = ["cpu"]
    else:
        candidates = ["cuda", "mps", "cpu"]
        if prefer is not None:
            candidates.insert(0, prefer)
    for kind in candidates:
        if is_usable(kind):
            return torch.device(kind)
    return torch.device("cpu")


device = pick_device()
print("This notebook runs on:", device)
print("NVIDIA device files on this machine:", glob.glob("/dev/nvidia*"))
# %% 01-usable-memory
def usable_memory(device):
    """Pass the device itself to torch.cuda: it resolves "cuda" to the current one."""
    device = torch.device(device)
    if device.type != "cuda":
        return None
    free, _ = torch.cuda.mem_get_info(device)
    cache = torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
    return free + cache

# %% 01-training-memory
STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


def training_bytes(model, optimizer="adam"):
    try:
        states = STATES_PER_PARAMETER[optimizer]
    except (KeyError, TypeError):
        raise ValueError(
            f"optimizer must be one of {', '.join(STATES_PER_PARAMETER)}"
        ) from None
    total = 0
    for _, param in model.named_parameters():
        size = param.element_size() * param.numel()
        total += size
        if param.requires_grad:
            total += size  # the gradient
            total += states * size
    for _, buffer in model.named_buffers():
        total += buffer.element_size() * buffer.numel()
    return total

# %% 01-largest-matrix
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    if free_bytes < 0 or copies < 1:
        raise ValueError("need free_bytes >= 0 and copies >= 1")
    bytes_per_n2 = copies * dtype.itemsize  # same as element_size()

    def fits(n):
        return n * n * bytes_per_n2 <= free_bytes

    low, high = 0, 1  # fits(low) is always true
    while fits(high):
        high *= 2
    while high - low > 1:  # fits(low) and not fits(high)
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


room = usable_memory(device)
if room is not None:
    n_max = largest_square_matrix(room)
    print(f"Three float32 matrices of up to {n_max:,} x {n_max:,} fit on {device}.")
else:
    n_max = largest_square_matrix(8 * 1024**3)
    print(f"No GPU here. With 8 GiB free, {n_max:,} x {n_max:,} float32 would fit.")
