# %% [markdown]
# # Day 02 - Moving data and models to the device
#
# PyTorch creates every tensor and every model on the CPU. To use a GPU you move
# them there yourself, and everything that meets in one operation (the model's
# weights, the inputs, the labels) must live on the *same* device. This lesson is
# about doing that reliably, and about reading the error you get when you do not.
#
# **Learning objectives.** By the end of this notebook you can
#
# - explain why `tensor.to(device)` returns a tensor you must keep (a new one when
#   it moves) while `model.to(device)` moves the model's parameters and buffers
#   *in place*;
# - move arbitrarily nested batches (tuples, lists, dicts of tensors) in one call;
# - read a device-mismatch error and turn it into a fix;
# - train the Iris MLP on whatever device is present and report its accuracy;
# - save a model trained on a GPU and load it on a laptop (`map_location`).
#
# **Time.** About 25 minutes of reading and 45 minutes of exercises (4 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 02_migration.ipynb`, which grades your own copy) also runs *hidden* tests, which
# compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test
# is a good sign, not a guarantee.
#
# No GPU needed. Where a second device is needed to show a mistake, we use PyTorch's
# **meta** device: tensors there have a shape and a dtype but no data, so moving to
# it and computing on it is free, and mixing it with CPU tensors raises the same
# kind of error as mixing CPU and GPU tensors: a `RuntimeError` that names both
# devices (its wording differs, as section 1 shows).

# %%
import io
import re

import numpy as np
import torch
from torch import nn

from course.checks import check_device, check_equal, check_type
from course.data import iris
from course.devices import pick_device
from course.diagrams import diagram
from course.plots import plot_loss, show
from course.recorded import describe_recorded, load_recorded, recorded_rows
from course.timing import benchmark

device = pick_device()
print(f"Running on {device}; torch {torch.__version__}")

# %% [markdown]
# ## 1. Tensors are copied, modules are moved
#
# The host (the CPU and its memory) and the device (the GPU and its own memory)
# are joined by one link, much slower than either memory (the figures in the
# diagram were recorded on an NVIDIA H200, 2026-11-30). Every `.to(device)` of
# data is a copy across it:

# %%
diagram("host_device")

# %% [markdown]
# `.to(device)` on a tensor returns a tensor on the target device and leaves the
# original where it was. On a module it moves every parameter and buffer and
# returns the module itself. Forgetting the assignment is therefore harmless for a
# model and a silent bug for a tensor:

# %%
x = torch.ones(3)
x.to("meta")  # result thrown away: x itself did not move
print("tensor after x.to('meta') without assignment:", x.device)
x_meta = x.to("meta")
print("the returned tensor:", x_meta.device, "- same object?", x_meta is x)

layer = nn.Linear(3, 2)
returned = layer.to("meta")
print("module after layer.to('meta'):", layer.weight.device,
      "- same object?", returned is layer)

# %% [markdown]
# ## 2. Moving nested batches
#
# Data loaders return batches as tuples `(inputs, labels)`, dicts
# `{"image": ..., "label": ...}`, or nestings of both. Training code needs one
# function that walks such a structure and moves every tensor it finds.
#
# ### Task 2.1 - `to_device`

# %% nbgrader={"grade_id": "02-to-device", "solution": true}
def to_device(batch, device):
    """Return a copy of `batch` with every tensor moved to `device`.

    Args:
        batch: a torch.Tensor, or a tuple, list or dict nesting them to any depth.
            Other values (numbers, strings, None, NumPy arrays...) are leaves.
        device: a torch.device or a string such as "cpu", "cuda" or "meta".

    Returns:
        The same structure: tuples stay tuples, lists stay lists, dicts keep their
        keys and order; tensors are replaced by `tensor.to(device)`; every other
        leaf is returned as it is (the very same object).
    """
    # Hint: recursion. isinstance(batch, dict / list / tuple / torch.Tensor).
    ### BEGIN SOLUTION
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    return batch
    ### END SOLUTION


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})

# %% nbgrader={"grade": true, "grade_id": "02-to-device-test", "points": 1}
"""to_device moves the tensors of a flat tuple and a dict, and keeps other leaves."""
a, b = torch.ones(2), torch.zeros(3, dtype=torch.int64)
out = to_device((a, b), "meta")
check_type(out, tuple, "to_device((a, b), 'meta')")
check_device(out[0], "meta", "out[0]")
check_device(out[1], "meta", "out[1]")
check_equal(tuple(out[1].shape), (3,), "out[1].shape")
out = to_device({"x": a, "name": "iris"}, "meta")
check_device(out["x"], "meta", 'out["x"]')
check_equal(out["name"], "iris", 'out["name"]')
check_device(a, "cpu", "the original tensor a (it must not move)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "02-to-device-hidden-test", "points": 2}
"""to_device handles deep nesting, leaves, and is idempotent (hidden)."""
check_type(to_device([torch.ones(1)], "meta"), list, "to_device([t], 'meta')")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_leaves = (1, 2.5, "text", object(), np.arange(3))
_deep = {
    "a": [torch.ones(2, 2), (torch.zeros(1, dtype=torch.int64), [torch.rand(3)])],
    "b": {"c": {"d": torch.rand(4, 5, dtype=torch.float64)}, "e": None},
    "f": _leaves,
    "g": [],
    "h": (),
}
_got = {}
for _target in ("meta", torch.device("meta")):
    _moved = outcome(to_device, _deep, _target)
    _got[f"to_device(deep, {_target!r})"] = _moved
    _got[f"to_device applied twice, {_target!r} (must be idempotent)"] = outcome(
        to_device, _moved, _target)
    _f = _moved.get("f") if isinstance(_moved, dict) else None
    _got[f"leaves: their container and types, {_target!r}"] = (
        _f.__class__.__name__, [_v.__class__.__name__ for _v in _f or ()])
    _got[f"a leaf returned as the same object, {_target!r}"] = (
        isinstance(_f, (tuple, list)) and len(_f) == 5 and _f[3] is _leaves[3])
_got["the input batch (to_device must not change it)"] = _deep["a"][0]
_got["to_device({'t': arange(3)}, 'cpu')"] = outcome(
    to_device, {"t": torch.arange(3)}, "cpu")
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. A model that carries its own scaling
#
# The Iris MLP of this course (4 inputs, 10 hidden units, 3 classes) standardises
# its inputs itself. The feature means and standard deviations are **buffers**:
# tensors that belong to the model and move with it, but that the optimiser does
# not train. They are also saved with it, so whoever loads the model needs no
# separate scaler. Buffers are exactly what a hand-written "move every parameter"
# loop forgets.

# %%
class IrisMLP(nn.Module):
    """4 -> 10 -> 3 MLP that standardises its inputs with stored statistics."""

    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32))
        self.fc1 = nn.Linear(4, 10)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1((x - self.mean) / self.std)))


split = iris(scale=None)  # raw centimetres: the model scales them itself
X_train = torch.from_numpy(split.X_train)
y_train = torch.from_numpy(split.y_train)
X_test = torch.from_numpy(split.X_test)
y_test = torch.from_numpy(split.y_test)
print("train:", tuple(X_train.shape), X_train.dtype, "| labels:", y_train.dtype)

# %% [markdown]
# ### Task 2.2 - `build_and_move_model`

# %% nbgrader={"grade_id": "02-build-model", "solution": true}
def build_and_move_model(device, X_train, seed=0):
    """Create an IrisMLP for `X_train` and put all of it on `device`.

    Args:
        device: where the model must live (torch.device or string).
        X_train: float32 CPU tensor of shape (n, 4).
        seed: call torch.manual_seed(seed) right before creating the model, so its
            initial weights are reproducible.

    Returns:
        The IrisMLP built with mean = X_train.mean(dim=0) and
        std = X_train.std(dim=0), with every parameter AND buffer on `device`.
    """
    # Hint: nn.Module.to moves parameters and buffers, and returns the module.
    ### BEGIN SOLUTION
    torch.manual_seed(seed)
    model = IrisMLP(X_train.mean(dim=0), X_train.std(dim=0))
    return model.to(device)
    ### END SOLUTION


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})

# %% nbgrader={"grade": true, "grade_id": "02-build-model-test", "points": 1}
"""build_and_move_model returns an IrisMLP whose parameters and buffers are on
the device."""
m = build_and_move_model("meta", X_train)
check_type(m, IrisMLP, "build_and_move_model('meta', X_train)")
for name, p in m.named_parameters():
    check_device(p, "meta", f"parameter {name}")
for name, b in m.named_buffers():
    check_device(b, "meta", f"buffer {name} (buffers move with model.to(device))")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "02-build-model-hidden-test", "points": 2}
"""build_and_move_model moves buffers too and is reproducible (hidden)."""
check_type(build_and_move_model("cpu", X_train), IrisMLP, "build_and_move_model")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit


def _moved_tensors(model):
    return dict(list(model.named_parameters()) + list(model.named_buffers()))


_got = {}
for _target in ("meta", torch.device("meta")):
    _m = build_and_move_model(_target, X_train, seed=3)
    _got[f"parameters and buffers after build_and_move_model({_target!r})"] = (
        _moved_tensors(_m))
for _seed in (0, 5):
    _m = build_and_move_model("cpu", X_train, seed=_seed)
    _got[f"state_dict with seed {_seed}"] = Approx(dict(_m.state_dict()), rtol=1e-6,
                                                   atol=1e-6)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Training on the device
#
# The seed of every GPU training loop: move the model, move the data once (not in
# every epoch), and keep everything that meets in one operation on one device. We
# also keep the loss history *on the device* (`loss.detach()`), instead of calling
# `loss.item()` every epoch: Day 03 shows why.
#
# ### Task 2.3 - `train_iris`

# %% nbgrader={"grade_id": "02-train-iris", "solution": true}
def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    """Train `model` with full-batch SGD on the device the model lives on.

    Args:
        model: an IrisMLP, already on the device where training must happen.
        X_train: float32 CPU tensor (n, 4); y_train: int64 CPU tensor (n,).
        num_epochs: number of full-batch steps; lr: SGD learning rate.

    Returns:
        (model, losses): the trained model and a 1-D float tensor of length
        num_epochs, ON THE MODEL'S DEVICE, holding every epoch's loss (detached).

    Each epoch: logits = model(X); loss = nn.functional.cross_entropy(logits, y);
    optimizer.zero_grad(); loss.backward(); optimizer.step(), with
    torch.optim.SGD(model.parameters(), lr=lr) created once before the loop.
    """
    # Hint: the model's device is next(model.parameters()).device. Move X_train
    # AND y_train there once, before the loop.
    ### BEGIN SOLUTION
    device = next(model.parameters()).device
    X, y = X_train.to(device), y_train.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return model, torch.stack(losses)
    ### END SOLUTION


def fresh_model(device, seed=0):
    """A new IrisMLP for X_train on `device` (independent of Task 2.2)."""
    torch.manual_seed(seed)
    return IrisMLP(X_train.mean(dim=0), X_train.std(dim=0)).to(device)


def accuracy(model, X, y):
    """Fraction of rows of X whose predicted class equals y (a Python float)."""
    with torch.no_grad():
        predicted = model(X.to(next(model.parameters()).device)).argmax(dim=1)
    return (predicted.cpu() == y.cpu()).float().mean().item()


model, losses = train_iris(fresh_model(device), X_train, y_train)
print(f"final loss {losses[-1].item():.4f}; test accuracy "
      f"{accuracy(model, X_test, y_test):.1%} on {device}")
plot_loss(losses.cpu(), title=f"Iris MLP on {device}")
show("02_iris_loss")

# %% nbgrader={"grade": true, "grade_id": "02-train-iris-test", "points": 1}
"""train_iris learns Iris to at least 90% test accuracy on this machine's device."""
m, hist = train_iris(fresh_model(device), X_train, y_train, num_epochs=300)
check_type(hist, torch.Tensor, "losses")
check_equal(tuple(hist.shape), (300,), "losses.shape")
check_device(hist, device.type, "losses")
check_equal(hist.requires_grad, False,
            "losses.requires_grad (keep each epoch's loss detached from its graph)")
acc = accuracy(m, X_test, y_test)
assert acc >= 0.9, f"test accuracy {acc:.1%} is below 90%: check the training loop"
# On the meta device (no GPU needed) a tensor left on the CPU raises at once; each
# input is given on the CPU in turn, so the message can name the one not moved.
for name, X_given, y_given in (("y_train", X_train.to("meta"), y_train),
                               ("X_train", X_train, y_train.to("meta"))):
    try:
        train_iris(fresh_model("meta"), X_given, y_given, num_epochs=2)
    except RuntimeError as exc:
        raise AssertionError(
            f"training a model on the meta device failed when {name} came from the "
            f"CPU: move {name} to the model's device before the loop ({exc})"
        ) from None
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "02-train-iris-hidden-test", "points": 2}
"""train_iris moves inputs and labels, and matches the reference (hidden)."""
check_type(train_iris(fresh_model("cpu"), X_train, y_train, num_epochs=2)[1],
           torch.Tensor, "losses")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, submit

_got = {}
# On the meta device any tensor left behind on the CPU raises a device error.
_m, _hist = train_iris(fresh_model("meta"), X_train, y_train, num_epochs=3)
_got["losses when training on meta"] = _hist
_got["trained model's parameters on meta"] = dict(_m.named_parameters())
for _epochs, _lr, _seed in ((50, 0.1, 0), (20, 0.5, 4)):
    _m, _hist = train_iris(fresh_model("cpu", _seed), X_train, y_train, _epochs, _lr)
    _got[f"losses (lr={_lr})"] = Approx(_hist, rtol=1e-4, atol=1e-6)
    _got[f"losses.requires_grad (lr={_lr}; detach each epoch's loss)"] = (
        _hist.requires_grad)
    _got[f"trained fc2.weight (lr={_lr})"] = Approx(_m.fc2.weight.detach(), rtol=1e-4,
                                                     atol=1e-6)
for _seed in (1, 2):
    _m, _ = train_iris(fresh_model("cpu", _seed), X_train, y_train)
    _got[f"test accuracy with seed {_seed}"] = Bound(accuracy(_m, X_test, y_test),
                                                    low=0.9)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Reading a device-mismatch error
#
# Forget one `.to(device)` and PyTorch stops with a `RuntimeError`. Its wording
# depends on the PyTorch version and on which argument was on the wrong device:
#
# - `Expected all tensors to be on the same device, but found at least two
#   devices, cuda:0 and cpu!`
# - `Expected all tensors to be on the same device, but got mat1 is on cpu,
#   different from other tensors on cuda:0 (when checking argument ...)`
# - `Tensor on device meta is not on the expected device cpu!`
#
# Here is a real one, made by giving a model on the meta device CPU inputs:

# %%
meta_model = fresh_model("meta")
try:
    meta_model(X_train)
except RuntimeError as exc:
    caught = exc
print(f"{type(caught).__name__}: {caught}")

# %% [markdown]
# ### Task 2.4 - `explain_mismatch`
#
# Turn such an error into a hint a tired student can act on. The device names in a
# message match `DEVICE_PATTERN` below; `re.findall(DEVICE_PATTERN, message)` lists
# them in order.

# %% nbgrader={"grade_id": "02-mismatch", "solution": true}
DEVICE_PATTERN = r"\b(?:cuda(?::\d+)?|mps(?::\d+)?|cpu|meta)\b"


def explain_mismatch(exc):
    """Explain a device-mismatch error in one line, or return None.

    Args:
        exc: any exception.

    Returns:
        If exc is a RuntimeError whose message contains the word "device" and at
        least two *different* device names (DEVICE_PATTERN), with a and b the
        first two different names in order of appearance:
        f"Device mismatch: tensors on {a} and {b} met in one operation. "
        "Move the model, inputs and labels to one device with .to(device)."
        Otherwise None.
    """
    # Hint: keep the first occurrence of each name, in order.
    ### BEGIN SOLUTION
    if not isinstance(exc, RuntimeError):
        return None
    message = str(exc)
    if "device" not in message:
        return None
    names = []
    for name in re.findall(DEVICE_PATTERN, message):
        if name not in names:
            names.append(name)
    if len(names) < 2:
        return None
    return (f"Device mismatch: tensors on {names[0]} and {names[1]} met in one "
            "operation. Move the model, inputs and labels to one device with "
            ".to(device).")
    ### END SOLUTION


print(explain_mismatch(caught))

# %% nbgrader={"grade": true, "grade_id": "02-mismatch-test", "points": 1}
"""explain_mismatch names both devices of a real error and ignores other errors."""
hint = explain_mismatch(caught)
check_type(hint, str, "explain_mismatch(caught)")
assert "cpu" in hint and "meta" in hint, f"the hint must name both devices: {hint}"
assert ".to(device)" in hint, "the hint must say how to fix it"
check_equal(explain_mismatch(ValueError("device cpu and cuda:0")), None,
            "explain_mismatch of a ValueError")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "02-mismatch-hidden-test", "points": 2}
"""explain_mismatch matches the reference on many PyTorch wordings (hidden)."""
check_type(explain_mismatch(caught), str, "explain_mismatch(caught)")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_messages = [
    "Expected all tensors to be on the same device, but found at least two "
    "devices, cuda:0 and cpu!",
    "Expected all tensors to be on the same device, but found at least two "
    "devices, cpu and cuda:1! (when checking argument for argument mat1 in method "
    "wrapper_CUDA_addmm)",
    "Expected all tensors to be on the same device, but got index is on cpu, "
    "different from other tensors on cuda:0 (when checking argument in method "
    "wrapper_CUDA__index_select)",
    "Tensor on device cpu is not on the expected device meta!",
    "Expected all tensors to be on the same device, but found at least two "
    "devices, mps:0 and cpu!",
    "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
    "should be the same or input should be a MKLDNN tensor and weight is a dense "
    "tensor",
    "CUDA out of memory. Tried to allocate 2.00 GiB on device cuda:0",
    "cuda:0 cuda:0 device",
    "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x10)",
]
_got = {}
for _text in _messages:
    for _exc in (RuntimeError(_text), ValueError(_text)):
        _label = f"explain_mismatch({type(_exc).__name__}({_text[:40]!r}...))"
        _got[_label] = outcome(explain_mismatch, _exc)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Pinned memory and `non_blocking`
#
# A copy from ordinary (pageable) host memory to the GPU goes through a staging
# buffer. *Pinned* (page-locked) memory lets the GPU read directly, which is faster
# (recorded on an NVIDIA H200, 2026-11-30, for 1 GiB: host to device 55.4 GB/s
# pinned against 8.1 GB/s pageable; device to host 55.3 against 16.3 GB/s) and lets
# `tensor.to(device, non_blocking=True)` return before the copy ends, so the CPU can
# prepare the next batch meanwhile (CUDA C++ Best Practices Guide, "Pinned Memory").
#
# - `DataLoader(pin_memory=True)` only *pins*: it puts each batch in page-locked
#   memory. The non-blocking copy is still yours to ask for, with
#   `batch.to(device, non_blocking=True)`.
# - Pinning has a cost of its own: the pages must be allocated and locked. It
#   pays off for a buffer reused across many copies, or when the DataLoader
#   pins batches in a background thread while the GPU computes. Below, the
#   pinning is timed on its own and kept out of the copy's timer.
# - It only helps for copies to a CUDA GPU; on a CPU there is nothing to copy.
#
# Measured on this machine:

# %%
if device.type == "cuda":
    host = torch.randn(64, 1024, 1024)  # 256 MiB
    pin_time = benchmark(lambda: host.pin_memory(), repeat=3, label="pinning")
    pinned = host.pin_memory()
    pageable_time = benchmark(lambda: host.to(device), device, repeat=5,
                              label="pageable -> GPU")
    pinned_time = benchmark(lambda: pinned.to(device, non_blocking=True), device,
                            repeat=5, label="pinned -> GPU")
    print(f"{pin_time}  (paid once per pinned buffer)")
    for result in (pageable_time, pinned_time):
        print(f"{result}  ({host.nbytes / result.median / 1e9:.1f} GB/s)")
else:
    print(f"No CUDA GPU here ({device}): pinned-memory copies cannot be measured.")
print(describe_recorded("bench"))
for run in load_recorded("bench"):
    copies = recorded_rows(run, "transfer", direction="host_to_device")
    largest = max((row["bytes"] for row in copies), default=0)
    for row in copies:
        if row["bytes"] == largest:
            print(f"  host -> device, {row['memory']:>8} memory: "
                  f"{row['gbps']:6.1f} GB/s ({largest / 2**20:.0f} MiB, {run.label})")

# %% [markdown]
# ## 7. Train on the GPU, load on a laptop
#
# A saved `state_dict` remembers where each tensor lived. Loading a GPU-trained
# checkpoint on a machine without a GPU fails unless you say where to put the
# tensors: `torch.load(..., map_location="cpu")`.

# %%
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
state = torch.load(buffer, map_location="cpu", weights_only=True)
laptop_model = IrisMLP(state["mean"], state["std"])
laptop_model.load_state_dict(state)
print("saved on", device, "-> loaded on", next(laptop_model.parameters()).device)
print(f"test accuracy after loading: {accuracy(laptop_model, X_test, y_test):.1%}")

# %% [markdown]
# ## Summary
#
# - `tensor.to(device)` returns a tensor on the device (a new one, unless the
#   tensor was already there with that dtype): assign it. `model.to(device)` moves
#   parameters and buffers in place and returns the model.
# - Move data once, before the loop; model, inputs and labels must share a device.
# - A device-mismatch error names both devices: find the tensor you forgot.
# - Pinned memory speeds up host-to-GPU copies (3 to 7 times on the recorded H200
#   run); `map_location` loads GPU checkpoints anywhere.
#
# **Open exercises.**
#
# 1. Remove `.to(device)` from `y_train` inside `train_iris` and train a
#    `fresh_model("meta")`.
#    Which message do you get, and what does `explain_mismatch` make of it?
# 2. Write the "move every parameter" loop by hand (`p.data = p.data.to(...)`).
#    Which tensors does it miss?
# 3. On a GPU machine, time `train_iris` on the CPU and on the GPU. Which one wins on
#    Iris, and why? (Day 03 measures it properly.)
