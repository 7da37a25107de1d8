"""If-chains with a note on sys.stderr for the fallback; math.isqrt, then checked both ways; usable memory read at one index, training bytes summed from nbytes."""

# score: 12
# kind: allowed
# %% 01-pick-device
import sys

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    """Return the torch.device to run on (see the task for the rules)."""
    if prefer not in VALID_PREFERENCES:
        raise ValueError(
            f"prefer must be one of {VALID_PREFERENCES}, not {prefer!r}"
        )
    if prefer == "cpu":
        return torch.device("cpu")
    if prefer == "cuda" and torch.cuda.is_available():
        return torch.device("cuda")
    if prefer == "mps" and torch.backends.mps.is_available():
        return torch.device("mps")
    if prefer is not None:
        print(f"{prefer} is not available here, falling back", file=sys.stderr)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


device = pick_device()
print("This notebook runs on:", device)
# %% 01-usable-memory
def usable_memory(device):
    """Bytes of new tensors this process can still put on a CUDA device."""
    device = torch.device(device)
    if device.type != "cuda":
        return None
    index = device.index if device.index is not None else torch.cuda.current_device()
    free = torch.cuda.mem_get_info(index)[0]
    return free + torch.cuda.memory_reserved(index) - torch.cuda.memory_allocated(index)

print(f"usable on {device}: {usable_memory(device)}")
# %% 01-training-memory
STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


def training_bytes(model, optimizer="adam"):
    """Weights, gradients and optimizer states, plus buffers, in bytes."""
    if optimizer not in STATES_PER_PARAMETER:
        raise ValueError(f"unknown optimizer {optimizer!r}: use one of "
                         f"{sorted(STATES_PER_PARAMETER)}")
    copies = 2 + STATES_PER_PARAMETER[optimizer]
    weights = sum(p.nbytes * (copies if p.requires_grad else 1)
                  for p in model.parameters())
    return weights + sum(b.nbytes for b in model.buffers())

# %% 01-largest-matrix
import math


def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    """Largest n such that `copies` n x n matrices of `dtype` fit in free_bytes."""
    if free_bytes < 0:
        raise ValueError(f"free_bytes must be >= 0, got {free_bytes}")
    if copies < 1:
        raise ValueError(f"copies must be >= 1, got {copies}")
    element_size = torch.tensor([], dtype=dtype).element_size()
    n = math.isqrt(free_bytes // (copies * element_size))
    # check the answer, as the hint says
    while copies * (n + 1) * (n + 1) * element_size <= free_bytes:
        n += 1
    while n > 0 and copies * n * n * element_size > free_bytes:
        n -= 1
    return n


room = usable_memory(device)
if room is not None:
    n_max = largest_square_matrix(room)
    print(f"Three float32 matrices of up to {n_max:,} x {n_max:,} fit on {device}.")
else:
    n_max = largest_square_matrix(8 * 1024**3)
    print(f"No GPU here. With 8 GiB free, {n_max:,} x {n_max:,} float32 would fit.")
