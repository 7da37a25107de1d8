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
# - read a device-mismatch error, find the tensor that caused it (a forgotten
#   input, a plain attribute that should be a buffer), and fix it;
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

import numpy as np
import torch
from torch import nn

from course.checks import check_device, check_equal, check_that, check_type
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
check_that(acc >= 0.9, "test accuracy {acc:.1%} is below 90%: check the training loop",
           acc=acc)
# On the meta device (no GPU needed) a tensor left on the CPU raises at once; each
# input is given on the CPU in turn, so the message can name the one not moved.
for name, X_given, y_given in (("y_train", X_train.to("meta"), y_train),
                               ("X_train", X_train, y_train.to("meta"))):
    failure = None
    try:
        train_iris(fresh_model("meta"), X_given, y_given, num_epochs=2)
    except RuntimeError as exc:
        failure = exc
    check_that(failure is None,
               "training a model on the meta device failed when {name} came from "
               "the CPU: move {name} to the model's device before the loop ({error})",
               name=name, error=failure)
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
# ## 5. Finding the tensor you forgot
#
# Forget one `.to(device)` and PyTorch stops with a `RuntimeError`. Its wording
# depends on the PyTorch version and on which argument was on the wrong device:
#
# - `Expected all tensors to be on the same device, but found at least two
#   devices, cuda:0 and cpu!`
# - `Expected all tensors to be on the same device, but got mat1 is on cpu,
#   different from other tensors on cuda:0 (when checking argument ...)`
# - `Tensor on device cpu is not on the expected device meta!`
#
# The message names the devices, rarely the tensor. The usual suspects:
#
# - an input or a label that was never moved (or moved without assigning);
# - a tensor kept as a plain attribute (`self.offset = torch.zeros(3)`) instead
#   of a buffer: `model.to(device)` moves parameters and buffers only, so the
#   attribute stays behind, and `named_buffers()` does not list it either.
#
# Here is a real case: a model moved to the meta device whose offset stayed on
# the CPU, given inputs on the meta device.

# %%
class Shifted(nn.Module):
    """A linear layer plus an offset kept as a plain attribute (the bug)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.offset = torch.zeros(3)  # should be self.register_buffer("offset", ...)

    def forward(self, x):
        return self.fc(x) + self.offset


shifted = Shifted().to("meta")
try:
    shifted(torch.ones(2, 4, device="meta"))
except RuntimeError as exc:
    caught = exc
print(f"{type(caught).__name__}: {caught}")

# %% [markdown]
# ### Task 2.4 - `misplaced`
#
# Write the check you would run before the failing line: list everything that
# is not on the device. A plain tensor attribute sits in the module's own
# `vars(module)`; `model.named_modules()` gives every module with its name
# (`""` for the model itself).

# %% nbgrader={"grade_id": "02-misplaced", "solution": true}
def misplaced(model, inputs, device):
    """Name every tensor that `model(*inputs)` needs but is not on `device`.

    Args:
        model: a torch.nn.Module.
        inputs: a tuple or list of arguments for the model; only the tensors
            among them are checked.
        device: a torch.device or a string such as "cpu", "cuda", "cuda:1", "meta".
            A tensor is on it when tensor.device.type equals its type and, if
            `device` has an index, tensor.device.index equals that index.

    Returns:
        A list of names, in this order:
        1. parameters not on `device`, as model.named_parameters() names them;
        2. buffers not on `device`, as model.named_buffers() names them;
        3. plain tensor attributes (tensors in vars(module) of each module in
           model.named_modules()) not on `device`, named f"{module_name}.{attr}",
           or just attr for the model itself;
        4. f"inputs[{i}]" for each input tensor not on `device`.
        An empty list when everything is in place.
    """
    # Hint: write one small helper, `on_device(tensor)`, and use it four times.
    ### BEGIN SOLUTION
    target = torch.device(device)

    def on_device(tensor):
        if tensor.device.type != target.type:
            return False
        return target.index is None or tensor.device.index == target.index

    names = [name for name, p in model.named_parameters() if not on_device(p)]
    names += [name for name, b in model.named_buffers() if not on_device(b)]
    for module_name, module in model.named_modules():
        for attr, value in vars(module).items():
            if isinstance(value, torch.Tensor) and not on_device(value):
                names.append(f"{module_name}.{attr}" if module_name else attr)
    names += [
        f"inputs[{i}]"
        for i, value in enumerate(inputs)
        if isinstance(value, torch.Tensor) and not on_device(value)
    ]
    return names
    ### END SOLUTION


print(misplaced(shifted, (torch.ones(2, 4, device="meta"),), "meta"))
print(misplaced(fresh_model("meta"), (X_train,), "meta"))

# %% nbgrader={"grade": true, "grade_id": "02-misplaced-test", "points": 1}
"""misplaced finds a plain attribute, a forgotten input and a half-moved model."""
found = misplaced(shifted, (torch.ones(2, 4, device="meta"),), "meta")
check_type(found, list, "misplaced(shifted, ...)")
check_equal(found, ["offset"], "what misplaced finds in Shifted on meta")
check_equal(misplaced(fresh_model("cpu"), (X_train,), "cpu"), [],
            "misplaced when everything is on the CPU")
half = fresh_model("cpu")
half.fc2.to("meta")  # moves that layer only
check_equal(
    misplaced(half, (X_train.to("meta"),), torch.device("meta")),
    ["fc1.weight", "fc1.bias", "mean", "std"],
    "misplaced(half-moved IrisMLP) (parameters, then buffers)",
)
check_equal(misplaced(half, (X_train, 3, "text"), "cpu"),
            ["fc2.weight", "fc2.bias"], "misplaced with non-tensor inputs")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "02-misplaced-hidden-test", "points": 2}
"""misplaced matches the reference on more models and devices (hidden)."""
check_type(misplaced(nn.ReLU(), (), "cpu"), list, "misplaced(nn.ReLU(), (), 'cpu')")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit


def _nested():
    model = nn.Sequential(nn.Sequential(Shifted(), nn.BatchNorm1d(3)), nn.Linear(3, 2))
    model.register_buffer("table", torch.arange(5), persistent=False)
    model.scale = torch.ones(1)
    model[1].weight.requires_grad_(False)
    return model


_models = {}
for _target in ("cpu", "meta"):
    _models[f"nested model on {_target}"] = _nested().to(_target)
_partly = _nested()
_partly[0].to("meta")
_models["nested model with its first block on meta"] = _partly
_tied = nn.Sequential(nn.Embedding(7, 4), nn.Linear(4, 7, bias=False))
_tied[1].weight = _tied[0].weight
_models["tied weights on meta"] = _tied.to("meta")
_cases = [
    ((), "cpu"),
    ((torch.ones(2, 3),), "meta"),
    ((torch.ones(2, 3, device="meta"), torch.zeros(2), None, [1, 2]), "meta"),
    ((torch.ones(1), torch.ones(1, device="meta")), torch.device("cpu")),
]
_got = {}
for _label, _model in _models.items():
    for _inputs, _device in _cases:
        _got[f"misplaced({_label}, {len(_inputs)} inputs, {_device!r})"] = outcome(
            misplaced, _model, _inputs, _device)
_got["misplaced with a list of inputs"] = outcome(
    misplaced, nn.Linear(2, 2), [torch.ones(2, device="meta"), torch.ones(2)], "cpu")
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# The fix, once `misplaced` names the culprit: register the tensor as a buffer
# (`self.register_buffer("offset", torch.zeros(3))`) so that `model.to` moves
# it, and move inputs and labels with the batch. One exception to the rule: a
# 0-dimensional CPU tensor such as `torch.tensor(2.0)` mixes with tensors on any
# device, as PyTorch treats it like a Python number. `misplaced` lists it all the
# same.

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
#   pays off for a buffer reused across many copies, or when a DataLoader with
#   `num_workers > 0` pins batches in a thread of its own while the GPU computes
#   (with `num_workers=0` it pins in the main process, between steps). Below, the
#   first pinning is timed on its own, kept out of the copy's timer. PyTorch's
#   caching host allocator keeps a freed pinned block, so a second `pin_memory()`
#   of the same size reuses it and times a copy, not pinning: the cell below
#   measures both.
# - A plain `tensor.to(device)` (without `non_blocking=True`) waits for its own
#   copy: PyTorch calls `cudaMemcpyAsync`, then `cudaStreamSynchronize`
#   (`memcpy_and_sync` in `aten/src/ATen/native/cuda/Copy.cu`), from pinned memory
#   too. It is a synchronisation (Day 03), and `SyncCounter` counts it.
# - It only helps for copies to a CUDA GPU; on a CPU there is nothing to copy.
#
# Measured on this machine:

# %%
if device.type == "cuda":
    host = torch.randn(64, 1024, 1024)  # 256 MiB
    pin_time = benchmark(lambda: host.pin_memory(), device, warmup=0, repeat=1,
                         label="pinning (first call: allocates and locks)")
    pin_again = benchmark(lambda: host.pin_memory(), device, repeat=3,
                          label="pinning again (a cached block: a copy)")
    pinned = host.pin_memory()
    pageable_time = benchmark(lambda: host.to(device), device, repeat=5,
                              label="pageable -> GPU")
    pinned_time = benchmark(lambda: pinned.to(device, non_blocking=True), device,
                            repeat=5, label="pinned -> GPU")
    print(f"{pin_time}  (paid once per pinned buffer)")
    print(f"{pin_again}  (the caching host allocator's block, reused)")
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
# - A device-mismatch error names both devices, rarely the tensor: list what is
#   off the device (`misplaced`), and register model tensors as buffers.
# - Pinned memory speeds up copies (on the recorded H200 run, 2026-11-30, 1 GiB:
#   6.8 times host to GPU, 3.4 times GPU to host); a plain `.to(device)` waits for
#   its copy; `map_location` loads GPU checkpoints anywhere.
#
# **Open exercises.**
#
# 1. Remove `.to(device)` from `y_train` inside `train_iris` and train a
#    `fresh_model("meta")`.
#    Which message do you get? Pass the labels to `misplaced` among the inputs
#    to find them.
# 2. Write the "move every parameter" loop by hand (`p.data = p.data.to(...)`).
#    Which tensors does it miss?
# 3. On a GPU machine, time `train_iris` on the CPU and on the GPU. Which one wins on
#    Iris, and why? (Day 03 measures it properly.)
