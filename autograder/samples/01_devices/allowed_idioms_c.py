"""A checking decorator built with functools.wraps and a recursive fallback; lru_cache'd element size, float root corrected; a match statement on the device, math.prod sizes chained with itertools."""

# score: 12
# kind: allowed
# %% 01-pick-device
import functools

VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def checks_preference(function):
    @functools.wraps(function)
    def checked(prefer=None):
        if prefer not in VALID_PREFERENCES:
            choices = ", ".join(repr(p) for p in VALID_PREFERENCES)
            raise ValueError(f"unknown device preference {prefer!r}; use one of {choices}")
        return function(prefer)

    return checked


@checks_preference
def pick_device(prefer=None):
    """Return the torch.device to run on."""
    if prefer == "cpu":
        return torch.device("cpu")
    wanted = {
        "cuda": torch.cuda.is_available,
        "mps": torch.backends.mps.is_available,
    }
    if prefer in wanted:
        if wanted[prefer]():
            return torch.device(prefer)
        return pick_device(None)  # the fallback is the same answer as None
    if torch.cuda.is_available():
        return torch.device("cuda")
    elif torch.backends.mps.is_available():
        return torch.device("mps")
    else:
        return torch.device("cpu")


device = pick_device()
print("This notebook runs on:", device, "| pick_device.__doc__:", pick_device.__doc__)
# %% 01-usable-memory
def usable_memory(device):
    match torch.device(device):
        case torch.device(type="cuda", index=index):
            i = torch.cuda.current_device() if index is None else index
            return sum((torch.cuda.mem_get_info(i)[0], torch.cuda.memory_reserved(i),
                        -torch.cuda.memory_allocated(i)))
        case _:
            return None

# %% 01-training-memory
import itertools
import math

STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


def _bytes(t):
    return math.prod(t.shape) * t.dtype.itemsize


def training_bytes(model, optimizer="adam"):
    if optimizer not in STATES_PER_PARAMETER:
        raise ValueError(f"pick one of {list(STATES_PER_PARAMETER)}")
    extra = 1 + STATES_PER_PARAMETER[optimizer]
    trainable = [p for p in model.parameters() if p.requires_grad]
    stored = itertools.chain(model.parameters(), model.buffers())
    return sum(map(_bytes, stored)) + extra * sum(map(_bytes, trainable))

# %% 01-largest-matrix
import functools


@functools.lru_cache(maxsize=None)
def bytes_per_element(dtype):
    return torch.tensor([], dtype=dtype).element_size()


def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    if free_bytes < 0:
        raise ValueError("free_bytes cannot be negative")
    if copies < 1:
        raise ValueError("copies must be at least 1")
    per_matrix_element = copies * bytes_per_element(dtype)
    n = int((free_bytes / per_matrix_element) ** 0.5)  # may be off by one
    while n * n * per_matrix_element > free_bytes:
        n -= 1
    while (n + 1) * (n + 1) * per_matrix_element <= free_bytes:
        n += 1
    return n


room = usable_memory(device)
if room is not None:
    n_max = largest_square_matrix(room)
    print(f"Three float32 matrices of up to {n_max:,} x {n_max:,} fit on {device}.")
else:
    n_max = largest_square_matrix(8 * 1024**3)
    print(f"No GPU here. With 8 GiB free, {n_max:,} x {n_max:,} float32 would fit.")
