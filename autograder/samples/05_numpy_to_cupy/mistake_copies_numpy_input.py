"""np.array(x) for NumPy input: a copy, not the same object."""


# score: 8
# zero: 05-to-numpy-test
# kind: mistake
# %% 05-to-numpy
def to_numpy(x):
    if hasattr(x, "get"):
        return x.get()
    if type(x).__module__.startswith("torch"):
        return x.detach().cpu().numpy()
    return np.array(x)


print(to_numpy(fake_cupy.arange(3)), to_numpy([1, 2]))
