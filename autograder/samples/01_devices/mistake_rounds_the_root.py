"""Rounds the square root to the nearest integer instead of rounding down."""


# score: 9
# zero: 01-largest-matrix-test, 01-largest-matrix-hidden-test
# kind: mistake
# %% 01-largest-matrix
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    import math

    if free_bytes < 0 or copies < 1:
        raise ValueError("free_bytes must be >= 0 and copies >= 1")
    size = torch.tensor([], dtype=dtype).element_size()
    return round(math.sqrt(free_bytes / (copies * size)))


room = usable_memory(device)
if room is not None:
    n_max = largest_square_matrix(room)
    print(f"Three float32 matrices of up to {n_max:,} x {n_max:,} fit on {device}.")
else:
    n_max = largest_square_matrix(8 * 1024**3)
    print(f"No GPU here. With 8 GiB free, {n_max:,} x {n_max:,} float32 would fit.")
