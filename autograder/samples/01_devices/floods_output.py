"""Prints 200,000 lines."""


# score: 12
# kind: broken
# %% 01-largest-matrix
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    import math

    if free_bytes < 0 or copies < 1:
        raise ValueError("bad input")
    size = torch.tensor([], dtype=dtype).element_size()
    return math.isqrt(int(free_bytes) // (copies * size))


for _line in range(200_000):
    print("x" * 50)
