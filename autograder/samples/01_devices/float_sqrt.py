"""Float square root, off by one."""


# score: 10
# zero: 01-largest-matrix-hidden-test
# kind: mistake
# %% 01-largest-matrix
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    size = torch.tensor([], dtype=dtype).element_size()
    return int((free_bytes / (copies * size)) ** 0.5)
