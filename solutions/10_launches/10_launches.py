# %% [markdown]
# # Day 10 - Fewer launches, the right precision, and where the memory goes
#
# Day 03 found the homework article's Iris loop *host-bound*: the GPU waits for the
# host to queue one tiny operation after another. Day 09 fused a chain of operations
# into one kernel. Today you cut launches in an ordinary PyTorch training step,
# choose a number format per device, and count the memory a training step needs.
#
# **Learning objectives.** By the end of this notebook you can
#
# - count the kernel launches of a training step, and cut them with a `foreach`
#   or fused optimizer, `zero_grad(set_to_none=True)`, no Python loop over the
#   parameters, and a larger batch;
# - say what `torch.compile` and CUDA graphs change, with counts and modelled
#   figures;
# - measure what float32 and bfloat16 cost in accuracy against float64, and train
#   in mixed precision with `torch.autocast` and, for float16, a `GradScaler`;
# - count a training step's memory (parameters, gradients, optimizer state,
#   saved activations) and tell `memory_allocated` from `memory_reserved`.
#
# **Time.** About 30 minutes of reading and 40 minutes of exercises (3 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 10_launches.ipynb`, which grades your own copy) also runs *hidden* tests, which
# compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test
# is a good sign, not a guarantee.
#
# **No GPU needed.** Launches are counted on the CPU (the course's model counts each
# aten operation a GPU would run as one launch), accuracy is measured on the CPU,
# and GPU speed is modelled by `course.gpumodel`, labelled as such.

# %%
import copy
import time

import matplotlib.pyplot as plt
import torch
from torch import nn

from course import gpumodel
from course.checks import check_close, check_equal, check_that, check_type
from course.data import seed_regression
from course.devices import pick_amp
from course.plots import show
from course.simulate import FakeGPU, simulate_hardware

torch.manual_seed(0)
data = seed_regression(465)  # Day 06 and Day 08's data: 5 features
X_train = torch.tensor(data.X_train, dtype=torch.float32)
y_train = torch.tensor(data.y_train, dtype=torch.float32).reshape(-1, 1)
X_test = torch.tensor(data.X_test, dtype=torch.float32)
y_test = torch.tensor(data.y_test, dtype=torch.float32).reshape(-1, 1)


def make_mlp(sizes=(5, 64, 64, 1), seed=0):
    """A ReLU network with the given layer sizes (the same weights per seed)."""
    torch.manual_seed(seed)
    layers = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(n_in, n_out), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


print(make_mlp())

# %% [markdown]
# ## 1. Launches per training step
#
# **The counting rule** (`course.gpumodel.trace`): run the step on the CPU and
# record every aten operation PyTorch's dispatcher sees. The course's model counts
# each as one kernel launch on a GPU. That is a model, not a fact: a large matrix
# product can run as several kernels, a `_foreach` operation launches one kernel per
# chunk of tensors, and some operations launch none. `torch.profiler` on a GPU shows
# the real kernels (Day 03). The model excepts operations that only change a
# tensor's metadata (views, `reshape` of contiguous data, `t`, `expand`,
# `detach`...) and bare allocations: `gpumodel.NOT_LAUNCHES` lists them. `.item()`,
# `float()` and printing a tensor are counted apart, as synchronisations. Each
# launch is also put in one part of the step (`Trace.by_part()`): **forward and
# loss** (grad mode on, an input that requires grad), **backward** (run by
# autograd), or **bookkeeping** (everything else: the optimizer's update, zeroing,
# copies). However you write your loss, its launches land in the first two parts.
#
# A first training step, written the way many tutorials write it:

# %%
loss_fn = nn.MSELoss()


def naive_step(model, X, y, lr=0.01):
    model.zero_grad(set_to_none=False)  # fills every gradient with zeros
    loss = loss_fn(model(X), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():  # two launches per parameter
            p -= lr * p.grad
    return loss.item()  # a synchronisation every step


model = make_mlp()
naive_step(model, X_train[:256], y_train[:256])  # the first step allocates
naive = gpumodel.trace(lambda: naive_step(model, X_train[:256], y_train[:256]))
print(f"naive step: {naive.launches} launches, {naive.syncs} sync: {naive.by_op()}")
print(f"by part: {naive.by_part()}")

# %% [markdown]
# Where they go: 6 `zero_` (one per parameter tensor), then 6 `add_` as
# backward adds each new gradient into the zeroed one, a `mul` and a `sub_` per
# parameter for the update, and the forward and backward passes (`addmm`,
# `relu`, `mse_loss`, `mm`, `sum`, `threshold_backward`...). The forward and
# backward passes are the model's work; the rest is bookkeeping you can cut:
#
# - `optimizer.zero_grad(set_to_none=True)` (the default since PyTorch 2.0)
#   drops the gradients instead of zeroing them: the next backward writes them
#   fresh, no launch;
# - a `foreach` optimizer updates *all* parameters with one `_foreach_*` launch
#   per step of its formula; a `fused` one runs the whole update in one kernel
#   per chunk of tensors (one launch for a model as small as this one).
#   Ask for one: on the CPU, `torch.optim.SGD` defaults to a loop over the
#   parameters (foreach is the default for CUDA tensors only);
# - no Python loop over parameters;
# - return the loss as a tensor and read it when you log, not every step.
#
# ### Task 10.1 - `make_optimizer` and `train_step`

# %% nbgrader={"grade_id": "10-lean-step", "solution": true}
def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    ### BEGIN SOLUTION
    try:
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, fused=True)
    except (RuntimeError, TypeError):  # an older PyTorch without fused SGD here
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum,
                               foreach=True)
    ### END SOLUTION


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    ### BEGIN SOLUTION
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
    ### END SOLUTION


model = make_mlp()
optimizer = make_optimizer(model)
train_step(model, optimizer, X_train[:256], y_train[:256])  # state is created
lean = gpumodel.trace(lambda: train_step(model, optimizer, X_train[:256],
                                         y_train[:256]))
print(f"lean step: {lean.launches} launches, {lean.syncs} syncs: {lean.by_op()}")
print(f"by part: {lean.by_part()}")

# %% [markdown]
# **The budget.** Forward, loss and backward are your model's work, counted in
# the same run, and never held against you. Bookkeeping may launch one update
# (a fused optimizer's kernel: one chunk of tensors for this model) and at most 3
# more.

# %% nbgrader={"grade": true, "grade_id": "10-lean-step-test", "points": 1}
"""A lean step: no sync, at most 3 bookkeeping launches beyond one update."""
_model = make_mlp()
_opt = make_optimizer(_model)
_X, _y = X_train[:64], y_train[:64]
_returned = train_step(_model, _opt, _X, _y)
check_type(_returned, torch.Tensor, "train_step(...)")
check_that(_returned.grad_fn is None and not _returned.requires_grad,
           "train_step returned a loss still attached to the graph: "
           "return loss.detach(), so the graph of every step is freed and nothing "
           "can call backward on it again")
_step = gpumodel.trace(lambda: train_step(_model, _opt, _X, _y))
check_equal(_step.syncs, 0, "synchronisations in train_step")
_parts = _step.by_part()
check_that(_parts["backward"] > 0,
           "train_step ran no backward pass: call loss.backward()")
check_that(_parts["bookkeeping"] <= 1 + 3,
           "train_step's bookkeeping launched {count} kernels {ops}, beside "
           "{forward} for forward and loss and {backward} for backward (those never "
           "count): one update and at most 3 more are allowed, 4 in all. Use "
           "foreach/fused SGD and zero_grad(set_to_none=True), and no loop over the "
           "parameters.",
           count=_parts["bookkeeping"], ops=_step.by_op("bookkeeping"),
           forward=_parts["forward and loss"], backward=_parts["backward"])
_losses = [float(train_step(_model, _opt, _X, _y)) for _ in range(5)]
check_that(_losses[-1] < _losses[0], "the loss should go down: {losses}",
           losses=_losses)
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "10-lean-step-hidden-test", "points": 2}
"""train_step matches the reference update, launch budget held (hidden)."""
_visible_model = make_mlp()
_loss = train_step(_visible_model, make_optimizer(_visible_model), _X, _y)
check_equal(_loss.dim(), 0, "the loss's dimensions")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, submit

_got = {}
for _sizes, _lr, _batch in (((5, 8, 1), 0.005, 16), ((5, 32, 32, 1), 0.001, 64),
                            ((5, 16, 16, 16, 1), 0.002, 128)):
    _model = make_mlp(_sizes, seed=7)
    _opt = make_optimizer(_model, lr=_lr, momentum=0.9)
    _X, _y = X_train[:_batch], y_train[:_batch]
    _label = f"MLP {list(_sizes)}, lr {_lr}, batch {_batch}"
    _first = train_step(_model, _opt, _X, _y)
    _got[f"{_label}: first loss"] = Approx(_first, rtol=1e-5, atol=1e-6)
    _got[f"{_label}: the loss is detached"] = bool(
        isinstance(_first, torch.Tensor) and _first.grad_fn is None
        and not _first.requires_grad)
    for _ in range(3):
        train_step(_model, _opt, _X, _y)
    _got[f"{_label}: weights after 4 steps"] = Approx(
        [p.detach().clone() for p in _model.parameters()], rtol=1e-4, atol=1e-6)
    _step = gpumodel.trace(lambda: train_step(_model, _opt, _X, _y))
    _got[f"{_label}: bookkeeping launches (one update and at most 3 more: 4 in "
         "all)"] = Bound(_step.by_part()["bookkeeping"], high=1 + 3)
    _got[f"{_label}: syncs"] = Bound(_step.syncs, high=0)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ### A larger batch
#
# Forward and backward cost a fixed number of launches *per step*, whatever the
# batch holds. An epoch over 4,096 rows in batches of 32 is 128 steps; in
# batches of 2,048 it is 2. Counted with your `train_step` ("Going further"
# models what each costs on two GPUs):

# %%
X_big = torch.randn(4096, 5)
y_big = torch.randn(4096, 1)
batch_rows = []
for batch in (32, 128, 512, 2048):
    model = make_mlp()
    optimizer = make_optimizer(model)
    train_step(model, optimizer, X_big[:batch], y_big[:batch])

    def epoch(model=model, optimizer=optimizer, batch=batch):
        for start in range(0, len(X_big), batch):
            train_step(model, optimizer, X_big[start:start + batch],
                       y_big[start:start + batch])

    run = gpumodel.trace(epoch)
    batch_rows.append((batch, run.launches, run))
    print(f"batch {batch:>5}: {run.launches:>5} launches per epoch")

fig, ax = plt.subplots(figsize=(5.4, 3.8), layout="constrained")
batches = [r[0] for r in batch_rows]
ax.plot(batches, [r[1] for r in batch_rows], "o-")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("batch size (rows)")
ax.set_ylabel("kernel launches per epoch")
ax.set_title("Launches per epoch of 4,096 rows (counted)")
show("10_launches_per_epoch")

# %% [markdown]
# A larger batch also changes training (fewer, less noisy steps per epoch):
# it is a trade, not a free win. The launch counts printed above are what the *host*
# is spared.
#
# ## 2. `torch.compile` and CUDA graphs (shown, not graded)
#
# `torch.compile` traces a function into a graph and generates fused kernels
# for it (on the CPU: C++ loops; on a GPU: Triton kernels; PyTorch
# documentation, "TorchInductor"). Its first call
# compiles, which takes seconds (17.4 s for the tiny network below, measured on
# the course's 2-core test machine on 2026-12-01; the cell prints your time),
# too slow to repeat in every graded notebook, so grading skips this cell.
# Later calls reuse the compiled code.

# %% tags=["skip-grading"]
from torch._inductor import metrics

model = make_mlp()
eager = gpumodel.trace(lambda: model(X_test))
try:
    metrics.reset()
    started = time.perf_counter()
    compiled = torch.compile(model)
    out = compiled(X_test)
    print(f"first compiled call: {time.perf_counter() - started:.1f} s")
    torch.testing.assert_close(out, model(X_test), rtol=1e-5, atol=1e-5)
    # a profiler, not a dispatch mode: under one the compiled code runs eagerly
    calls = gpumodel.profiled_calls(lambda: compiled(X_test))
    print(f"eager forward: {eager.launches} launches {eager.by_op()}")
    print(f"compiled: {metrics.generated_kernel_count} generated kernel(s), and "
          f"{sum(calls.values())} library calls it still makes {calls} "
          "(counted by PyTorch's profiler); same outputs to 1e-5")
except Exception as exc:  # noqa: BLE001 - a missing C++ compiler, say
    print(f"torch.compile could not run here: {type(exc).__name__}: {exc}")

# %% [markdown]
# A **CUDA graph** records a whole step's launches once and replays them with
# one launch (`torch.cuda.CUDAGraph` with the `torch.cuda.graph` context manager,
# `torch.cuda.make_graphed_callables`, or `torch.compile(mode="reduce-overhead")`).
# The GPU does the same work; the host queues one graph instead of every kernel.
# They need a GPU; "Going further" models what one saves.
#
# ## 3. Precision: float64, float32, bfloat16
#
# Fewer bits per number means less memory traffic and, on GPUs with the units
# for it, more arithmetic per second (the spec sheets' TFLOP/s per format; the
# recorded H200 figures below), and less precision: float64 keeps 52 bits
# of mantissa, float32 23, bfloat16 7. What that costs a model is measured here
# on Day 08's regression network (`[5, 32, 1]`, ReLU, full-batch gradient
# descent, lr 0.005, 500 epochs: Day 08's first checkpoint) trained in
# float64, in float32, and in
# float32 with bfloat16 autocast (matrix products in bfloat16, weights in
# float32). Three seeds each: a difference smaller than the spread between
# seeds is no difference. The second column compares each network's test
# predictions with the float64 network trained from the same seed.

# %%
def train_in(dtype, autocast=None, seed=0, epochs=500, lr=0.005):
    """Day 08's network in PyTorch; returns (test MSE, test predictions)."""
    net = make_mlp((5, 32, 1), seed=seed).to(dtype)
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    Xd, yd = X_train.to(dtype), y_train.to(dtype)
    for _ in range(epochs):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=autocast, enabled=autocast is not None):
            out = net(Xd)
        loss_fn(out.to(dtype), yd).backward()
        opt.step()
    with torch.no_grad():
        pred = net(X_test.to(dtype)).double()
    return float(loss_fn(pred, y_test.double())), pred


SEEDS = (0, 1, 2)
formats = {"float64": (torch.float64, None), "float32": (torch.float32, None),
           "bfloat16 autocast": (torch.float32, torch.bfloat16)}
runs = {name: [train_in(d, a, seed) for seed in SEEDS]
        for name, (d, a) in formats.items()}
for name, results in runs.items():
    mses = [mse for mse, _ in results]
    gap = max(float((pred - ref[1]).square().mean().sqrt())
              for (_, pred), ref in zip(results, runs["float64"]))
    print(f"{name:>18}: test MSE {sum(mses) / len(mses):.3f} (seeds {min(mses):.3f} to "
          f"{max(mses):.3f}); predictions differ from float64's by at most "
          f"{gap:.2e} (RMS)")
spread = max(m for m, _ in runs["float64"]) - min(m for m, _ in runs["float64"])
print(f"spread of float64's test MSE across seeds: {spread:.3f}")

# %% [markdown]
# ### Mixed precision: `torch.autocast` and `GradScaler`
#
# Training *in* a 16-bit format (`model.half()`) is not the recipe. PyTorch's
# automatic mixed precision keeps the weights and the optimizer in float32 and
# runs the operations that gain from it (matrix products, convolutions) in a
# 16-bit format inside `torch.autocast(device_type=..., dtype=...)`; reductions
# such as the loss stay in float32 (PyTorch documentation, "Automatic Mixed
# Precision package - torch.amp").
#
# - **bfloat16** has float32's exponent range, so gradients underflow and overflow
#   no more often than in float32: autocast alone is enough. GPUs of compute
#   capability 8.0 and later have bfloat16 tensor cores, and CPUs run it too (as
#   this notebook does).
# - **float16** has 5 exponent bits: small gradients flush to zero and large
#   values overflow to inf. It needs *loss scaling*: `torch.amp.GradScaler`
#   multiplies the loss by a large factor before `backward()`, divides the
#   gradients by it before the update, **skips the update** when a gradient is
#   inf or NaN and then halves the factor (and doubles it after 2,000 good steps
#   in a row, by default). Use float16, always with a `GradScaler`, where
#   bfloat16 is missing: compute capability 7.x (V100, T4).
# - On a GPU of compute capability 8.0 or later,
#   `torch.set_float32_matmul_precision("high")` also lets plain float32 matrix
#   products use TF32 tensor cores (10 bits of mantissa).
#
# `pick_amp` (given, in `course.devices`; Day 11 uses it too) applies these rules; the
# simulated GPUs of Day 01 show its choice on cards you may not have:

# %%
with simulate_hardware(gpus=[FakeGPU("Tesla T4", major=7, minor=5),
                             FakeGPU("NVIDIA H200", major=9, minor=0)]):
    for where in ("cpu", "cuda:0", "cuda:1"):
        dtype, scaler_needed = pick_amp(where)
        print(f"{where:>6}: autocast {dtype}, GradScaler needed: {scaler_needed}")

# %% [markdown]
# ### Task 10.2 - `amp_step`
#
# One mixed-precision training step that serves both formats. `scaler` is a
# `torch.amp.GradScaler`; made with `enabled=False` (for bfloat16) it passes
# everything through unchanged, so the same four scaler calls are right for both.

# %% nbgrader={"grade_id": "10-amp", "solution": true}
def amp_step(model, optimizer, scaler, X, y, dtype):
    """One training step with autocast in `dtype` and loss scaling by `scaler`.

    Args:
        model: a float32 nn.Module on X's device; optimizer: over its parameters.
        scaler: a torch.amp.GradScaler for X's device type (enabled or not).
        X, y: a batch (n, 5) and targets (n, 1), float32, on one device.
        dtype: torch.bfloat16 or torch.float16, the autocast format.

    Steps: optimizer.zero_grad(); inside torch.autocast(device_type=X.device.type,
    dtype=dtype): loss = loss_fn(model(X), y); then scaler.scale(loss).backward(),
    scaler.step(optimizer) (which skips the update if a gradient is inf or NaN)
    and scaler.update(). The model's parameters stay float32.

    Returns:
        The loss, detached: a 0-d float32 tensor on X's device.
    """
    # Hint: only the forward pass and the loss go inside the autocast block.
    ### BEGIN SOLUTION
    optimizer.zero_grad()
    with torch.autocast(device_type=X.device.type, dtype=dtype):
        loss = loss_fn(model(X), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()
    ### END SOLUTION


# %%
def amp_setup(sizes=(5, 16, 1), seed=0, lr=0.001, dtype=torch.float16):
    """A model, its SGD optimizer and the GradScaler `dtype` calls for (CPU)."""
    model = make_mlp(sizes, seed=seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu", enabled=dtype == torch.float16)
    return model, optimizer, scaler


model, optimizer, scaler = amp_setup(dtype=torch.bfloat16)
for step in range(3):
    loss = amp_step(model, optimizer, scaler, X_train[:64], y_train[:64],
                    torch.bfloat16)
    print(f"bfloat16 step {step}: loss {float(loss):.3f}")

# %% nbgrader={"grade": true, "grade_id": "10-amp-test", "points": 1}
"""amp_step returns a float32 loss, keeps float32 weights, and with float16 skips a
step whose gradients overflow instead of writing inf or NaN into the weights."""
model, optimizer, scaler = amp_setup(dtype=torch.float16)
loss = amp_step(model, optimizer, scaler, X_train[:32], y_train[:32], torch.float16)
check_type(loss, torch.Tensor, "amp_step(...)")
check_equal(loss.dim(), 0, "the loss's dimensions")
check_equal(loss.dtype, torch.float32, "the loss's dtype")
check_equal({p.dtype for p in model.parameters()}, {torch.float32},
            "the parameters' dtypes (autocast, not model.half())")
with torch.no_grad():  # the same first loss, all in float32
    float32_loss = loss_fn(make_mlp((5, 16, 1), seed=0)(X_train[:32]), y_train[:32])
check_that(not torch.equal(loss, float32_loss),
           "the loss equals the float32 loss to the last bit, so nothing ran in "
           "float16: run the forward pass and the loss inside "
           "torch.autocast(device_type=X.device.type, dtype=dtype)")
before = [p.detach().clone() for p in model.parameters()]
scale = scaler.get_scale()
# 1e5 times the inputs overflow float16 (largest value 65504): inf, then NaN
amp_step(model, optimizer, scaler, X_train[:32] * 1e5, y_train[:32], torch.float16)
check_that(all(torch.isfinite(p).all() for p in model.parameters()),
           "a float16 step whose gradients overflowed wrote inf or NaN into the "
           "weights: call scaler.scale(loss).backward() and "
           "scaler.step(optimizer), which skips such a step, instead of "
           "loss.backward() and optimizer.step()")
check_that(all(torch.equal(a, b) for a, b in zip(before, model.parameters())),
           "the weights changed on a step whose gradients overflowed: let "
           "scaler.step(optimizer) do the update (it skips such a step)")
check_equal(scaler.get_scale(), scale / 2,
            "the scale after a skipped step (call scaler.update() every step)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "10-amp-hidden-test", "points": 2}
"""amp_step matches the reference in both formats, skipped steps included (hidden)."""
model, optimizer, scaler = amp_setup(dtype=torch.bfloat16)
check_type(amp_step(model, optimizer, scaler, X_train[:8], y_train[:8],
                    torch.bfloat16), torch.Tensor, "amp_step(...)")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_got = {}
for _dtype, _sizes, _seed, _lr, _batch in (
        (torch.bfloat16, (5, 32, 1), 1, 0.001, 64),
        (torch.bfloat16, (5, 16, 16, 1), 2, 0.002, 128),
        (torch.float16, (5, 32, 1), 3, 0.001, 64),
        (torch.float16, (5, 16, 16, 1), 4, 0.0005, 32)):
    _model, _opt, _scaler = amp_setup(_sizes, _seed, _lr, _dtype)
    _X, _y = X_train[:_batch], y_train[:_batch]
    _label = f"{_dtype}, MLP {list(_sizes)}, lr {_lr}, batch {_batch}"
    _losses = [outcome(amp_step, _model, _opt, _scaler, _X, _y, _dtype)
               for _ in range(3)]
    if _dtype == torch.float16:  # a step whose float16 values overflow
        outcome(amp_step, _model, _opt, _scaler, _X * 1e5, _y, _dtype)
    _losses.append(outcome(amp_step, _model, _opt, _scaler, _X, _y, _dtype))
    _got[f"{_label}: losses"] = Approx(_losses, rtol=1e-3, atol=1e-5)
    _got[f"{_label}: weights after the steps"] = Approx(
        [p.detach().clone() for p in _model.parameters()], rtol=1e-3, atol=1e-5)
    _got[f"{_label}: parameter dtypes"] = sorted(
        {str(p.dtype) for p in _model.parameters()})
    _got[f"{_label}: loss scale after the steps"] = _scaler.get_scale()
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Where the memory goes
#
# **Two allocators.** Freeing a tensor does not return its memory to the
# driver: PyTorch's caching allocator keeps the block for the next tensor of a
# similar size (PyTorch documentation, CUDA semantics, "Memory management").
# The same section gives the reason: the cache allows fast deallocation without
# device synchronisations.
#
# - `torch.cuda.memory_allocated()`: bytes held by live tensors;
#   `torch.cuda.memory_reserved()`: bytes the cache holds (live or not);
#   `torch.cuda.max_memory_allocated()`: the peak of the first.
# - `torch.cuda.empty_cache()` returns the unused cached blocks to the driver.
# - CuPy has the same idea: `cupy.get_default_memory_pool()` with `used_bytes()`,
#   `total_bytes()` and `free_all_blocks()`.
# - `nvidia-smi` reports what the *driver* gave each process: the reserved
#   memory plus the CUDA context, so it stays high after your tensors are gone
#   (the same documentation section: the memory the allocator keeps "will still
#   show as if used in nvidia-smi"). That is the cache working, not a leak.
#
# **What a training step holds at its peak**, as this lesson counts it:
#
# - the parameters;
# - one gradient per parameter that requires one (same size);
# - the optimizer's state: every tensor in `optimizer.state` after a step
#   (SGD without momentum: none; with momentum: one buffer per parameter; Adam:
#   two, plus a step counter);
# - the activations autograd saves during the forward pass for the backward:
#   each distinct storage once, the input batch included, the parameters
#   excluded (already counted). `torch.autograd.graph.saved_tensors_hooks`
#   shows you every saved tensor.
#
# A measured peak can be higher than this count: on CUDA, Adam's default
# `foreach` path makes a temporary the size of all parameters at the step
# (`_foreach_sqrt` of the second moments), after the activations are freed. The
# task counts what the list above names.
#
# ### Task 10.3 - `peak_training_bytes`

# %% nbgrader={"grade_id": "10-memory", "solution": true}
def peak_training_bytes(model, batch, dtype, optimizer):
    """Bytes of parameters + gradients + optimizer state + saved activations.

    model: an nn.Module (leave it unchanged: work on a copy); batch: the input
    tensor; dtype: the torch dtype to train in; optimizer: a function that
    takes the parameters and returns an optimizer. Run one forward pass of
    model(batch) under saved_tensors_hooks, backward of the output's sum, and
    one optimizer step, on the CPU. Returns an int.
    """
    # Hint: storage = t.untyped_storage(); storage.data_ptr(), storage.nbytes().
    ### BEGIN SOLUTION
    model = copy.deepcopy(model).to(dtype)
    X = batch.to(dtype)
    params = list(model.parameters())
    param_bytes = sum(p.numel() * p.element_size() for p in params)
    grad_bytes = sum(p.numel() * p.element_size() for p in params if p.requires_grad)
    param_storages = {p.untyped_storage().data_ptr() for p in params}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in param_storages:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(X)
    out.sum().backward()
    opt = optimizer([p for p in params if p.requires_grad])
    opt.step()
    state_bytes = sum(
        v.numel() * v.element_size()
        for state in opt.state.values()
        for v in state.values()
        if torch.is_tensor(v)
    )
    return int(param_bytes + grad_bytes + state_bytes + sum(saved.values()))
    ### END SOLUTION


sgd = lambda params: torch.optim.SGD(params, lr=0.01)
adam = lambda params: torch.optim.Adam(params, lr=0.01)
for name, make in (("SGD", sgd), ("Adam", adam)):
    for dtype in (torch.float32, torch.bfloat16):
        peak = peak_training_bytes(make_mlp(), X_train[:256].clone(), dtype, make)
        print(f"{name:>4}, {str(dtype):>14}, batch 256: {peak / 1024:8.1f} KiB")

# %% nbgrader={"grade": true, "grade_id": "10-memory-test", "points": 1}
"""A network small enough to count by hand."""
_tiny = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
_before = [p.detach().clone() for p in _tiny.parameters()]
_got = peak_training_bytes(_tiny, torch.ones(5, 4), torch.float32, sgd)
check_type(_got, int, "peak_training_bytes(...)")
# parameters 23 floats, gradients 23, SGD state 0; saved: the input (5 x 4) and
# ReLU's output (5 x 3), which the second layer saves too (one storage).
check_equal(_got, 4 * (23 + 23 + 0 + 20 + 15), "bytes for the tiny network")
for _a, _b in zip(_tiny.parameters(), _before):
    check_close(_a.detach(), _b, rtol=0, name="the model's weights (unchanged)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "10-memory-hidden-test", "points": 2}
"""peak_training_bytes matches the reference's exact count (hidden)."""
check_type(peak_training_bytes(_tiny, torch.ones(2, 4), torch.float64, adam), int,
           "peak_training_bytes with Adam")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_momentum = lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9)
_got = {}
for _sizes in ((4, 3, 2), (5, 64, 64, 1), (7, 10, 10, 10, 3)):
    for _batch in (1, 33):
        for _dtype in (torch.float32, torch.float64, torch.bfloat16):
            for _oname, _make in (("SGD", sgd), ("SGD momentum", _momentum),
                                  ("Adam", adam)):
                _net = make_mlp(_sizes, seed=3)
                _label = (f"MLP {list(_sizes)}, batch {_batch}, {_dtype}, "
                          f"{_oname}")
                _got[_label] = outcome(peak_training_bytes, _net,
                                       torch.randn(_batch, _sizes[0]), _dtype, _make)
_frozen = make_mlp((5, 8, 1), seed=4)
_frozen[0].weight.requires_grad_(False)
_got["first weight frozen, Adam"] = outcome(peak_training_bytes, _frozen,
                                            torch.randn(9, 5), torch.float32, adam)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# On a GPU, the count meets the allocator: the cell below trains one step on
# CUDA and prints the counted peak beside `torch.cuda.max_memory_allocated()`.
# The measured peak also holds what this lesson's count leaves out: while
# backward runs, the gradients of the activations (for the network below, each
# 4,096 x 1,024 float32 numbers, 16 MiB), the allocator's rounding to 512-byte
# blocks (PyTorch's source documentation, c10/cuda/CUDACachingAllocator.cpp,
# kMinBlockSize), and library workspaces. No recorded GPU run of this cell exists yet;
# here it says what it would do.

# %%
if torch.cuda.is_available():
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    net = make_mlp((5, 1024, 1024, 1)).cuda()
    opt = adam(net.parameters())
    Xg = torch.randn(4096, 5, device="cuda")
    net(Xg).sum().backward()
    opt.step()
    torch.cuda.synchronize()
    measured = torch.cuda.max_memory_allocated() - base
    counted = peak_training_bytes(make_mlp((5, 1024, 1024, 1)), Xg.cpu(),
                                  torch.float32, adam)
    print(f"counted {counted / 2**20:.2f} MiB, measured peak {measured / 2**20:.2f} "
          f"MiB on {torch.cuda.get_device_name()}; reserved "
          f"{torch.cuda.memory_reserved() / 2**20:.0f} MiB")
else:
    print("No CUDA device: the allocator comparison runs in `make gpu-check`.")

# %% [markdown]
# ## Summary
#
# - A training step's launches: forward and backward are the model's work;
#   zeroing gradients, per-parameter updates and per-step `.item()` are
#   bookkeeping you can cut. A larger batch divides the per-step cost.
# - `torch.compile` fuses kernels at the price of a compile; CUDA graphs replay a
#   whole step as one launch.
# - Precision: section 3 measures each format's predictions against float64's
#   and against the spread between seeds; compare the two before calling a
#   format worse. FP64 runs at 1/32-1/64 of FP32 on consumer GPUs (spec
#   sheets), while the recorded H200 ran float64 matrix products in 0.79x the
#   float32 time: pick the format from the device.
# - Mixed precision keeps float32 weights and runs matrix products in 16 bits
#   under `torch.autocast`; bfloat16 needs nothing more, float16 needs a
#   `GradScaler`, which skips steps whose gradients overflow.
# - Memory: parameters, gradients, optimizer state and saved activations; the
#   caching allocator keeps freed memory, so `nvidia-smi` stays high.
#
# **Open exercises.**
#
# 1. Switch the optimizer to Adam with `foreach=False`. How many launches per
#    step now?
# 2. Which term of `peak_training_bytes` grows with the batch? Find the batch at
#    which activations outweigh Adam's state for the (5, 64, 64, 1) network.
# 3. Train with `amp_step` in float16 with the scaler disabled
#    (`GradScaler("cpu", enabled=False)`) on inputs multiplied by 1e3. What
#    happens to the weights, and why (range, not precision)?

# %% [markdown]
# ## Going further: launches, graphs and float64 on GPUs, modelled
#
# Everything above ran on your machine. This section turns the counts into times
# on named GPUs with the course's cost model (Day 03), each printed beside the
# model's recorded error for that kind of work, or the note that no recorded run
# checks it. **Modelled, not measured.**
#
# **Batch size.** The epochs of section 1, on a T4 and an H200:

# %% tags=["skip-grading"]
print(gpumodel.accuracy_for("pytorch loop"))
modelled_batches = []
for batch, launches, run in batch_rows:
    t4 = gpumodel.estimate(run, gpumodel.GPUS["t4"])
    h200 = gpumodel.estimate(run, gpumodel.GPUS["h200"])
    modelled_batches.append((batch, h200))
    print(f"batch {batch:>5}: {launches:>5} launches; modelled {t4.seconds * 1e3:6.2f} "
          f"ms on a T4, {h200.seconds * 1e3:6.2f} ms on an H200, the H200 computing "
          f"for {h200.device_busy_seconds * 1e3:.2f} ms of it")
fig, ax = plt.subplots(figsize=(5.4, 3.8), layout="constrained")
busy = [h200.device_busy_seconds * 1e3 for _, h200 in modelled_batches]
rest = [h200.seconds * 1e3 - b for (_, h200), b in zip(modelled_batches, busy)]
where = range(len(modelled_batches))
ax.bar(where, busy, color="C0", label="the GPU computing")
ax.bar(where, rest, bottom=busy, color="C0", alpha=0.35,
       label="the rest: the host queueing work")
ax.set_xticks(where, [str(b) for b, _ in modelled_batches])
ax.set_xlabel("batch size (rows)")
ax.set_ylabel("ms per epoch on an H200 (modelled)")
ax.set_title("Where a modelled epoch goes, by batch size")
ax.legend(fontsize="small")
show("10_epoch_modelled")

# %% [markdown]
# In the cost model each operation costs the host the same whatever the kernel
# computes (the host's share of the step, plus CUDA's cost for the operation),
# so the two GPUs print the same time at every batch size: the host sets it, and
# the chart shows the GPU idle for most of each epoch (modelled).

# %% [markdown]
# **CUDA graphs.** A CUDA graph records a whole step's launches once and replays
# them with one launch (`torch.cuda.CUDAGraph` with the `torch.cuda.graph` context
# manager, `torch.cuda.make_graphed_callables`, or
# `torch.compile(mode="reduce-overhead")`). The GPU does the same work; the host
# queues one graph instead of every kernel. Modelled for the lean step above: one
# launch from the host, then every kernel's own device time back to back
# (**modelled, not measured**; a replayed graph also needs fixed shapes and
# addresses, which the model does not charge for):

# %% tags=["skip-grading"]
print(gpumodel.accuracy_for("pytorch loop"))  # the step as launches
print(gpumodel.accuracy_for("CUDA graph replay"))
for key in ("t4", "h200"):
    spec = gpumodel.GPUS[key]
    one, replay = gpumodel.estimate(lean, spec), gpumodel.replayed(lean, spec)
    print(f"{spec.name:>26}: {one.seconds * 1e6:6.1f} µs per step as "
          f"{lean.launches} launches, {replay.seconds * 1e6:6.1f} µs as one graph, "
          f"of which the kernels' device time {replay.device_busy_seconds * 1e6:.1f}"
          " µs (modelled)")

# %% [markdown]
# **Float64.** Timing the speed side needs a GPU; here it comes from spec sheets and
# a recorded run. Spec sheets give FP64 at **1/64** of FP32 on NVIDIA's consumer
# Ampere cards (the homework article's RTX 3050 Laptop) and **1/32** on the T4.
# Data-centre cards (A100, H100, H200) run float64 *matrix products* on FP64 tensor
# cores, at about their FP32 rate: the recorded H200 run (2026-11-30) took 17.05 ms
# for a float64 8192 x 8192 product against 21.45 ms in float32 (PyTorch, TF32 off),
# **0.79x**. The cost model, calibrated on that run, turns this into the time of a
# float64 matrix product (**modelled, not measured**):

# %% tags=["skip-grading"]
matmul32 = gpumodel.Trace()
matmul32.op("4096 x 4096 matmul", 2 * 4096**3, 3 * 4096**2 * 4, torch.float32)
matmul64 = gpumodel.Trace()
matmul64.op("4096 x 4096 matmul", 2 * 4096**3, 3 * 4096**2 * 8, torch.float64)
print(gpumodel.accuracy_for("data-centre matmul"))  # the recorded H200 rows
print(gpumodel.accuracy_for("GeForce and T4 FP64"))
for spec in gpumodel.GPUS.values():
    t32 = gpumodel.estimate(matmul32, spec).seconds
    t64 = gpumodel.estimate(matmul64, spec).seconds
    print(f"{spec.name:>48}: float32 {t32 * 1e3:7.2f} ms, float64 {t64 * 1e3:8.2f} "
          f"ms ({t64 / t32:4.1f}x), modelled")
