# %% [markdown]
# # Day 05 - From NumPy to CuPy
#
# CuPy is NumPy for NVIDIA GPUs: the same functions, the same broadcasting, the same
# dtypes, with the arrays in GPU memory. "Just swap the import" is the promise. One
# learner who did exactly that saw a NumPy script that took 10 minutes fail to
# finish 1,000 iterations in 10 minutes on the GPU: about 60 times slower. The cure
# (move data once, keep results on the GPU, synchronise rarely) made it run in
# 10-15 seconds. This lesson is about that cure.
#
# **Learning objectives.** By the end of this notebook you can
#
# - tell host (CPU) memory from device (GPU) memory, and move arrays between them
#   explicitly with `xp.asarray`, `.get()` and `cupy.asnumpy`;
# - recognise the errors CuPy raises when host and device arrays are mixed;
# - write code once for NumPy and CuPy by taking the array module from the data;
# - measure what copies cost, and count the ones a loop makes.
#
# Without a GPU every cell runs with NumPy, and `fake_cupy`, a CPU stand-in with
# CuPy's rules, plays the GPU wherever a rule needs to be seen.

# %%
import time

import numpy as np

from course.backend import array_module, backend_name, get_xp, host_copy
from course.checks import check_close, check_equal, check_type
from course.data import linear_regression
from course.devices import cupy_status
from course.fakecupy import DeviceArray, fake_cupy
from course.plots import plot_loss, show
from course.recorded import describe_recorded, load_recorded, recorded_rows
from course.sync import SyncCounter
from course.timing import benchmark

xp = get_xp()  # CuPy when it can really run here, NumPy otherwise
NUM_SAMPLES = 20_000  # raise to 1_000_000 on a GPU box
NUM_EPOCHS = 200
status = cupy_status()
print(f"xp is {backend_name(xp)}; CuPy: {status.reason}")

# %% [markdown]
# ## 1. Same code, two places for the data
#
# `numpy` arrays live in host memory (RAM); `cupy` arrays live in device memory
# (the GPU's own RAM). Code written against a module name `xp` runs on either:

# %%
a = xp.arange(6, dtype=xp.float32).reshape(2, 3)
print(type(a), "\n", (a * 2 + 1).sum(axis=0))

# %% [markdown]
# ## 2. Moving data explicitly
#
# - host to device: `xp.asarray(numpy_array)` (a copy over PCIe or NVLink);
# - device to host: `device_array.get()` or `cupy.asnumpy(device_array)`.
#
# CuPy refuses to do either *implicitly*. `fake_cupy` follows the same rules on the
# CPU, so here are the two errors you will meet, whatever your machine:

# %%
host = np.arange(3, dtype=np.float32)
device_array = fake_cupy.asarray(host)  # explicit host -> device copy
for attempt, code in [
    ("np.asarray(device_array)", lambda: np.asarray(device_array)),
    ("device_array + host", lambda: device_array + host),
]:
    try:
        code()
    except TypeError as exc:
        print(f"{attempt:>25}: TypeError: {str(exc)[:70]}...")
print("explicit copy back:", device_array.get(), type(device_array.get()).__name__)

# %% [markdown]
# ## 3. Backend-agnostic functions
#
# Inside a function, do not decide between NumPy and CuPy yourself: ask the data.
# `array_module(X)` (like `cupy.get_array_module`) returns `cupy` for CuPy arrays
# and `numpy` otherwise (and `fake_cupy` for its arrays). Then every array you
# create inside the function is born where `X` lives, and nothing is copied.
#
# ### Task 5.1 - `standardize`

# %% nbgrader={"grade_id": "05-standardize", "solution": true}
def standardize(X):
    """Standardise each column of X, on X's own device.

    Args:
        X: a 2-D float array (NumPy, CuPy, or fake_cupy), shape (n, d).

    Returns:
        An array of the same kind, shape and dtype as X: each column minus its
        mean, divided by its standard deviation (X.std(axis=0), ddof=0). Columns
        whose standard deviation is 0 are only centred (divided by 1).
        Never convert X to NumPy, and never create NumPy arrays to mix with it.
    """
    # Hint: xp = array_module(X); xp.where(std == 0, 1, std).
    ### BEGIN SOLUTION
    xp = array_module(X)
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std = xp.where(std == 0, 1, std)
    return ((X - mean) / std).astype(X.dtype, copy=False)
    ### END SOLUTION


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
print(standardize(sample).mean(axis=0).round(6), standardize(sample).dtype)
print(type(standardize(fake_cupy.asarray(sample))).__name__)

# %% nbgrader={"grade": true, "grade_id": "05-standardize-test", "points": 1}
"""standardize centres and scales NumPy data and keeps device data on the device."""
out = standardize(sample)
check_type(out, np.ndarray, "standardize(numpy array)")
check_equal(out.shape, (6, 3), "shape")
check_equal(str(out.dtype), "float32", "dtype")
check_close(out.mean(axis=0), np.zeros(3), atol=1e-5, name="column means")
on_device = standardize(fake_cupy.asarray(sample))
check_type(on_device, DeviceArray, "standardize(device array)")
check_close(on_device, out, rtol=1e-5, atol=1e-6, name="device result")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "05-standardize-hidden-test", "points": 2}
"""standardize matches the reference on many shapes, dtypes and devices (hidden)."""
check_type(standardize(sample), np.ndarray, "standardize(sample)")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_rng = np.random.default_rng(11)
_got = {}
for _shape in ((1, 1), (5, 2), (40, 7), (3, 10)):
    for _dtype in (np.float32, np.float64):
        _X = (_rng.normal(0, 10, _shape) + _rng.uniform(-50, 50, _shape[1]))
        _X = _X.astype(_dtype)
        _X[:, 0] = 4.0  # a constant column
        _tol = 1e-4 if _dtype is np.float32 else 1e-10
        for _input, _where in ((_X.copy(), "NumPy"), (fake_cupy.asarray(_X), "device")):
            _label = f"standardize({_where} {_shape} {_dtype.__name__})"
            _got[_label] = Approx(outcome(standardize, _input), rtol=_tol, atol=_tol)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Back to NumPy, from anywhere
#
# Plotting, printing and scikit-learn want NumPy arrays. One helper that brings
# *anything* home saves a lot of `if`s: NumPy arrays as they are, CuPy (and
# fake_cupy) arrays with `.get()`, PyTorch tensors with `.detach().cpu().numpy()`.
#
# ### Task 5.2 - `to_numpy`

# %% nbgrader={"grade_id": "05-to-numpy", "solution": true}
def to_numpy(x):
    """Return x as a NumPy array.

    - a NumPy array: returned as it is (the same object);
    - an object with a `.get()` method (CuPy and fake_cupy arrays): x.get();
    - a torch.Tensor (on any device, with or without requires_grad):
      x.detach().cpu().numpy();
    - anything else (lists, numbers): np.asarray(x).
    """
    # Hint: check for torch by name (type(x).__module__.startswith("torch")) so
    # this works even where torch is not imported.
    ### BEGIN SOLUTION
    if isinstance(x, np.ndarray):
        return x
    if type(x).__module__.startswith("torch"):
        return x.detach().cpu().numpy()
    if hasattr(x, "get") and callable(x.get):
        return x.get()
    return np.asarray(x)
    ### END SOLUTION


print(to_numpy(fake_cupy.arange(3)), to_numpy([1, 2]))

# %% nbgrader={"grade": true, "grade_id": "05-to-numpy-test", "points": 1}
"""to_numpy handles NumPy, device arrays and lists."""
arr = np.ones(2)
assert to_numpy(arr) is arr, "a NumPy array must be returned as it is"
check_type(to_numpy(fake_cupy.arange(3)), np.ndarray, "to_numpy(device array)")
check_close(to_numpy(fake_cupy.arange(3)), np.arange(3), name="values")
check_type(to_numpy([1.0, 2.0]), np.ndarray, "to_numpy(list)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "05-to-numpy-hidden-test", "points": 2}
"""to_numpy on torch tensors, one transfer per device array (hidden)."""
check_type(to_numpy(3.0), np.ndarray, "to_numpy(3.0)")
### BEGIN HIDDEN TESTS
import torch as _torch

from course.results import outcome, submit

_got = {}
_t = _torch.arange(6, dtype=_torch.float32).reshape(2, 3).requires_grad_()
_got["to_numpy(tensor with grad)"] = outcome(to_numpy, _t)
_got["to_numpy(0-d tensor)"] = outcome(to_numpy, _torch.tensor(2.5))
_dev = fake_cupy.asarray(np.arange(12.0).reshape(3, 4))
with SyncCounter() as _syncs:
    _host = outcome(to_numpy, _dev)
_got["to_numpy(device array)"] = _host
_got["device-to-host transfers for one array"] = _syncs.count
for _value in (np.float32(2.0), [[1, 2], [3, 4]], 7):
    _got[f"to_numpy({_value!r})"] = outcome(to_numpy, _value)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. What a copy costs
#
# Every host-device copy crosses the PCIe bus (about 25 GB/s for PCIe 4 x16, in
# practice less from ordinary "pageable" memory), while a GPU reads its own memory
# at several TB/s. Creating data directly on the device avoids the copy entirely.
# Measured on this machine (without a GPU, the "copy" is a host memory copy):

# %%
big = np.random.default_rng(1).standard_normal((4096, 1024), dtype=np.float32)
if status.usable:
    import cupy

    copy_in = benchmark(lambda: cupy.asarray(big), "cupy", label="host -> device")
    on_device = cupy.asarray(big)
    copy_out = benchmark(lambda: on_device.get(), "cupy", label="device -> host")
    created = benchmark(lambda: cupy.random.standard_normal((4096, 1024),
                                                            dtype=cupy.float32),
                        "cupy", label="created on device")
    measured = [copy_in, copy_out, created]
else:
    measured = [benchmark(lambda: big.copy(), label="host memory copy")]
for result in measured:
    print(f"{result}  ->  {big.nbytes / result.median / 1e9:6.1f} GB/s "
          f"({big.nbytes / 2**20:.0f} MiB)")
print(describe_recorded("bench"))
for run in load_recorded("bench"):
    copies = recorded_rows(run, "transfer")
    largest = max((row["bytes"] for row in copies), default=0)
    for row in copies:
        if row["bytes"] == largest:
            print(f"  {row['direction']:>15}, {row['memory']:>8} memory: "
                  f"{row['gbps']:6.1f} GB/s ({largest / 2**20:.0f} MiB, {run.label})")

# %% [markdown]
# ## 6. One trip home, not four
#
# Each transfer back to the host also *waits* for the GPU (a synchronisation, Day
# 03). Four small results fetched one by one cost four waits; stacked on the device
# and fetched together, one.
#
# ### Task 5.3 - `summary_statistics`

# %% nbgrader={"grade_id": "05-summary", "solution": true}
def summary_statistics(X_host, xp):
    """Per-column mean, std, min and max of X_host, computed with `xp`.

    Args:
        X_host: a 2-D NumPy array (n, d).
        xp: the array module to compute with (numpy, cupy or fake_cupy).

    Returns:
        A NumPy array of shape (4, d): rows mean, std (ddof=0), min, max.
        Copy X_host to the device once with xp.asarray, compute there, and bring
        the result back with ONE transfer: host_copy(one_array) (the course's
        to_numpy, imported above) works for every xp.
    """
    # Hint: xp.stack([...]) builds the (4, d) result on the device.
    ### BEGIN SOLUTION
    X = xp.asarray(X_host)
    stats = xp.stack([X.mean(axis=0), X.std(axis=0), X.min(axis=0), X.max(axis=0)])
    return host_copy(stats)
    ### END SOLUTION


with SyncCounter() as syncs:
    stats = summary_statistics(sample, fake_cupy)
print(stats.round(3), f"\n{syncs.count} transfer(s) back to the host")

# %% nbgrader={"grade": true, "grade_id": "05-summary-test", "points": 1}
"""summary_statistics returns a (4, d) NumPy array with one transfer."""
with SyncCounter() as syncs:
    got = summary_statistics(sample, fake_cupy)
check_type(got, np.ndarray, "summary_statistics(sample, fake_cupy)")
check_equal(got.shape, (4, 3), "shape")
check_close(got[0], sample.mean(axis=0), rtol=1e-5, name="row 0 (mean)")
assert syncs.count <= 1, f"{syncs.count} transfers; stack first, then one host_copy"
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "05-summary-hidden-test", "points": 2}
"""summary_statistics matches the reference on NumPy and the device (hidden)."""
check_type(summary_statistics(sample, np), np.ndarray, "summary_statistics(np)")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, outcome, submit

_rng = np.random.default_rng(5)
_got = {}
for _shape in ((1, 1), (10, 4), (100, 9)):
    _X = _rng.normal(0, 5, _shape)
    for _mod in (np, fake_cupy):
        _label = f"summary_statistics({_shape}, {_mod.__name__})"
        with SyncCounter() as _syncs:
            _stats = outcome(summary_statistics, _X, _mod)
        _got[_label] = Approx(_stats, rtol=1e-9, atol=1e-9)
        _got[f"transfers in {_label}"] = Bound(_syncs.count, high=1)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. The 60x slowdown, and its cure
#
# The learner's loop computed the error on the host every epoch: one transfer and
# one synchronisation per epoch. The cure: log every `log_every` epochs only. Here
# is gradient descent for linear regression written once for any `xp`, run with
# `fake_cupy` to count the transfers and with `xp` to time it:

# %%
def gd_fit(X, y, num_epochs, lr=0.1, log_every=1):
    """Linear regression by gradient descent; returns (w, b, logged MSEs)."""
    mod = array_module(X)
    n, d = X.shape
    w, b = mod.zeros(d, dtype=X.dtype), mod.zeros((), dtype=X.dtype)
    history = []
    for epoch in range(num_epochs):
        error = X @ w + b - y
        if (epoch + 1) % log_every == 0:
            history.append(float((error**2).mean()))  # device -> host, every time
        w = w - lr * (2.0 / n) * (X.T @ error)
        b = b - lr * 2.0 * error.mean()
    return w, b, history


data = linear_regression(NUM_SAMPLES, 20, seed=0)
for log_every in (1, 50):
    with SyncCounter() as syncs:
        gd_fit(fake_cupy.asarray(data.X_train), fake_cupy.asarray(data.y_train),
               NUM_EPOCHS, log_every=log_every)
    X_dev, y_dev = xp.asarray(data.X_train), xp.asarray(data.y_train)
    start = time.perf_counter()
    *_, history = gd_fit(X_dev, y_dev, NUM_EPOCHS, log_every=log_every)
    seconds = time.perf_counter() - start  # float() above already synchronised
    print(f"log_every={log_every:3d}: {syncs.count:4d} transfers, "
          f"{seconds / NUM_EPOCHS * 1e3:.3f} ms/epoch with {backend_name(xp)}")
plot_loss(history, every=50, log_y=True, title="MSE during gradient descent")
show("05_gd_loss")

# %% [markdown]
# On a CPU both runs cost about the same: a "transfer" there is free. On a GPU the
# run that logs every epoch waits for the device 200 times. Recorded on real
# hardware, the same trap in a PyTorch training loop (`course bench`):

# %%
for run in load_recorded("bench"):
    for row in recorded_rows(run, "sync_trap"):
        if row["device"] != "cpu":
            print(f"  {row['variant']:>20}: {row['s_per_epoch'] * 1e3:.3f} ms/epoch, "
                  f"{row['syncs']} syncs ({run.label})")
if not load_recorded("bench"):
    print(describe_recorded("bench"))

# %% [markdown]
# ## Summary
#
# - CuPy mirrors NumPy; the difference is *where* the data lives.
# - Copies are explicit: `xp.asarray` in, `.get()` / `cupy.asnumpy` out. Mixing a
#   host array with a device array raises `TypeError`.
# - Write functions once: `xp = array_module(X)`, and create arrays with `xp`.
# - Every transfer home is a wait: batch results and fetch them once.
#
# **Open exercises.**
#
# 1. Call `gd_fit` with `log_every=NUM_EPOCHS`. How many transfers remain?
# 2. Rewrite `gd_fit` so that it stores the MSE on the device every epoch and
#    fetches the whole history once at the end.
# 3. On a GPU box, raise `NUM_SAMPLES` until the GPU beats NumPy. Where is it?
