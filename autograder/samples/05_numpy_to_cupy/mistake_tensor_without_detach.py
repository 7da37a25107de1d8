"""Tensors with .cpu().numpy() and no .detach(): fails when the tensor requires grad."""


# score: 7
# zero: 05-to-numpy-hidden-test
# kind: mistake
# %% 05-to-numpy
def to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return x.get()
    if type(x).__module__.startswith("torch"):
        return x.cpu().numpy()
    return np.asarray(x)


print(to_numpy(fake_cupy.arange(3)), to_numpy([1, 2]))
