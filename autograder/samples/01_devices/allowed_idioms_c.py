"""A checking decorator built with functools.wraps and a recursive fallback; lru_cache'd element size, float root corrected."""

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


report = gpu_memory_report(device)
if report["free_gb"] is not None:
    n_max = largest_square_matrix(int(report["free_gb"] * 1024**3))
    print(f"Three float32 matrices of up to {n_max:,} x {n_max:,} fit on {device}.")
else:
    n_max = largest_square_matrix(8 * 1024**3)
    print(f"No GPU here. With 8 GiB free, {n_max:,} x {n_max:,} float32 would fit.")
