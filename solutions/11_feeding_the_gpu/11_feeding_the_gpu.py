# %% [markdown]
# # Day 11 - Feeding the GPU: mini-batches, prefetching and mixed precision
#
# Every model you trained so far was tiny and saw all its data at once, so on a GPU it
# loses, as Day 03 measured: the GPU finishes each small operation before the host has
# queued the next. The learner's article of Day 05 found the cure for its own loop (take
# the copies out of it: "10-15 s", "≈60x faster"). Today you train a model large enough
# for a GPU to win, on mini-batches, and apply the recipes that keep a GPU fed: a
# `DataLoader` with pinned memory, copies issued one batch ahead, mixed precision and
# TF32. Each step is measured with the field's tools.
#
# **Learning objectives.** By the end of this notebook you can
#
# - train on mini-batches from a `DataLoader`, and say what `pin_memory`,
#   `num_workers` and `non_blocking` each do;
# - write a loader that issues the copy of batch k+1 before step k's
#   synchronisation, so the host never waits for a copy;
# - train an epoch with `torch.autocast` (bfloat16, or float16 with a
#   `GradScaler`) and without a single host-device synchronisation;
# - count a model's FLOPs with `torch.utils.flop_counter.FlopCounterMode`, and
#   turn a measured training rate into model FLOP utilisation (MFU);
# - switch on TF32 with `torch.set_float32_matmul_precision`, and say what
#   `torch.compile` adds.
#
# **Time.** About 30 minutes of reading and 40 minutes of exercises (3 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 11_feeding_the_gpu.ipynb`, which grades your own copy) also runs *hidden*
# tests, which compare your function with a reference answer on more inputs; a
# failed one says what differs, without the reference's values. Passing the
# visible test is a good sign, not a guarantee.
#
# **No GPU needed for the tasks.** On a laptop the model is small, every cell runs
# on the CPU, and the order of copies and synchronisations is checked on a
# simulated GPU (`SyncCounter`, Day 03). On a GPU the same cells use a model large
# enough to win, and report measured samples per second and MFU.

# %%
import torch
from sklearn.datasets import load_digits
from torch import nn
from torch.utils import benchmark
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.flop_counter import FlopCounterMode

from course import gpumodel
from course.checks import check_close, check_equal, check_that, check_type
from course.devices import pick_device
from course.plots import plot_timings, show
from course.sync import SyncCounter

device = pick_device()
ON_GPU = device.type == "cuda"
# A model large enough for a GPU to win there; small enough for a laptop here.
SIZE = (dict(hidden=8192, batch=4096, copies=64) if ON_GPU
        else dict(hidden=256, batch=128, copies=1))
print(f"Running on {device}; model and data sizes: {SIZE}")

# %% [markdown]
# ## 1. The data and the model
#
# scikit-learn ships 1,797 handwritten digits of 8 x 8 pixels (64 features, 10
# classes): nothing is downloaded. On a GPU the lesson repeats them with a little
# noise (`copies` in `SIZE`) so that an epoch has enough batches to time. The
# model is a wide MLP: two hidden layers of `hidden` units.

# %%
def digits(copies=1, seed=0):
    """The digits as float32 features in [0, 1] and int64 labels, repeated
    `copies` times with Gaussian noise (standard deviation 0.05) on the copies."""
    features, labels = load_digits(return_X_y=True)
    X = torch.tensor(features / 16.0, dtype=torch.float32).repeat(copies, 1)
    y = torch.tensor(labels, dtype=torch.int64).repeat(copies)
    if copies > 1:
        noise = torch.randn(X.shape, generator=torch.Generator().manual_seed(seed))
        X[len(features):] += 0.05 * noise[len(features):]
    return X, y


def wide_mlp(hidden, seed=0):
    """64 -> hidden -> hidden -> 10, ReLU between (the same weights per seed)."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, 10))


X_all, y_all = digits(SIZE["copies"])
dataset = TensorDataset(X_all, y_all)
with torch.device("meta"):  # sized without allocating (Day 01)
    n_params = sum(p.numel() for p in wide_mlp(SIZE["hidden"]).parameters())
print(f"{len(dataset):,} samples; the model has {n_params:,} parameters")

# %% [markdown]
# ## 2. The naive loop, measured
#
# A `DataLoader` cuts the data into shuffled mini-batches. The naive loop copies
# each batch with a plain `.to(device)`, and reads the loss with `.item()` every
# step to log it: a synchronisation per step, so the host can never run ahead.

# %%
def make_loader(pin=False, seed=0):
    """Shuffled mini-batches of `dataset`, the same order per seed. `pin` asks
    the DataLoader to put each batch in pinned memory (only where CUDA is)."""
    return DataLoader(dataset, batch_size=SIZE["batch"], shuffle=True,
                      generator=torch.Generator().manual_seed(seed),
                      pin_memory=pin and torch.cuda.is_available(), num_workers=0)


def naive_epoch(model, optimizer, loader):
    """One epoch as most first GPU loops are written: losses read every step."""
    losses = []
    for X, y in loader:
        X, y = X.to(device), y.to(device)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


model = wide_mlp(SIZE["hidden"]).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with SyncCounter() as syncs:
    losses = naive_epoch(model, optimizer, make_loader())
print(f"one naive epoch: {len(losses)} steps, {syncs.count} synchronisations, "
      f"last loss {losses[-1]:.3f}")

# %% [markdown]
# `torch.utils.benchmark.Timer` (Day 03) times an epoch; it synchronises a CUDA
# device before it stops its clock. The measured figure that matters for
# training is **samples per second**.

# %% tags=["skip-grading"]
def samples_per_second(epoch_fn, *args):
    """Median samples per second of `epoch_fn(*args)`, timed by torch's Timer."""
    timer = benchmark.Timer(stmt="epoch_fn(*args)",
                            globals={"epoch_fn": epoch_fn, "args": args})
    measured = timer.blocked_autorange(min_run_time=1.0)
    return len(dataset) / measured.median


rates = {"naive": samples_per_second(naive_epoch, model, optimizer, make_loader())}
print(f"naive loop: {rates['naive']:,.0f} samples/s on {device} (measured just now)")

# %% [markdown]
# ## 3. What the profiler sees
#
# `torch.profiler` (Day 03) shows where a step's time goes. On a GPU, the naive
# loop shows `aten::item` and `aten::_local_scalar_dense` (the wait for the
# loss) once per step, and a `Memcpy HtoD (Pageable -> Device)` per tensor; on a
# CPU there is nothing to copy, but the table has the same operators.

# %% tags=["skip-grading"]
activities = [torch.profiler.ProfilerActivity.CPU]
if ON_GPU:
    activities.append(torch.profiler.ProfilerActivity.CUDA)
few = [next(iter(make_loader())) for _ in range(3)]  # pageable, as naive_epoch's
few_pinned = [next(iter(make_loader(pin=True))) for _ in range(3)]


def profiled(label, epoch_fn, *args):
    """Profile `epoch_fn(*args)` in a record_function range; return the profile."""
    with torch.profiler.profile(activities=activities) as prof:
        with torch.profiler.record_function(label):
            epoch_fn(*args)
    return prof


naive_profile = profiled("naive steps", naive_epoch, model, optimizer, few)
print(naive_profile.key_averages().table(sort_by="self_cpu_time_total",
                                         row_limit=8))

# %% [markdown]
# ## 4. Pinned memory, and a copy one batch ahead
#
# Three settings of the `DataLoader` and one of the copy decide whether the GPU
# waits for data (PyTorch documentation, "CUDA semantics" and `torch.utils.data`):
#
# - `pin_memory=True` puts each batch in page-locked memory, which the GPU can
#   read directly (Day 02 measured the difference).
# - `num_workers=N` prepares batches in N worker processes. They hand batches
#   over through shared memory (`/dev/shm`); a sandbox without it, such as the
#   grader's, must use `num_workers=0`, as this lesson does.
# - `X.to(device, non_blocking=True)` from pinned memory queues the copy and
#   returns at once: the host does not wait for it. On the GPU it runs in
#   order with the kernels queued before it, on the same stream; running a copy
#   *at the same time* as compute takes a second stream (`torch.cuda.Stream`,
#   with `wait_stream` and `record_stream`; PyTorch documentation, "CUDA
#   semantics").
#
# Where each step ends in a synchronisation (a loss read, or float16's scaler),
# a copy issued after it makes the GPU idle while the host queues it. Issuing
# the copy of batch k+1 before handing out batch k keeps the queue full, which
# is what `prefetch` does.
#
# ### Task 11.1 - `prefetch`

# %% nbgrader={"grade_id": "11-prefetch", "solution": true}
def prefetch(loader, device):
    """Yield the batches of `loader` on `device`, each copied one batch ahead.

    Args:
        loader: an iterable of batches, each a tuple or list of tensors (for
            example a DataLoader's (X, y)).
        device: the torch.device to copy to.

    Yields:
        Each batch as a tuple of tensors on `device`, in the loader's order. Each
        tensor is copied with tensor.to(device, non_blocking=True), and the copy
        of batch k+1 is issued before batch k is yielded (the first batch is
        copied before anything is yielded; nothing is copied further ahead).
        An empty loader yields nothing.
    """
    # Hint: keep one copied batch in hand; next(iterator) gives the first.
    ### BEGIN SOLUTION
    batches = iter(loader)
    try:
        ahead = next(batches)
    except StopIteration:
        return
    ahead = tuple(t.to(device, non_blocking=True) for t in ahead)
    for batch in batches:
        current = ahead
        ahead = tuple(t.to(device, non_blocking=True) for t in batch)
        yield current
    yield ahead
    ### END SOLUTION


# %% [markdown]
# Three helpers check it on a CPU: `host_batches` makes batches on the host, as
# a `DataLoader` would; `consume` runs one "step" per batch, each ending in a
# synchronisation; `copies_before_each_sync` reads `SyncCounter.timeline` (Day
# 03's counter keeps the copies to the device in order with the syncs).

# %%
def host_batches(n_batches, rows=4, seed=0):
    """`n_batches` (X, y) pairs made on the host, as a DataLoader hands them out."""
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(rows, 64, generator=generator),
             torch.randint(0, 10, (rows,), generator=generator))
            for _ in range(n_batches)]


def consume(batches):
    """One 'step' per batch, each ending in a synchronisation (a loss read)."""
    seen = []
    for X, y in batches:
        seen.append((X, y))
        float(X.sum())
    return seen


def copies_before_each_sync(timeline):
    """From `SyncCounter.timeline`: how many uploads were issued before each sync."""
    counts, uploads = [], 0
    for kind, _op, _where in timeline:
        if kind == "upload":
            uploads += 1
        else:
            counts.append(uploads)
    return counts


with SyncCounter() as syncs:
    seen = consume(prefetch(host_batches(3), device))
print("uploads before each step's sync:", copies_before_each_sync(syncs.timeline))

# %% nbgrader={"grade": true, "grade_id": "11-prefetch-test", "points": 1}
"""prefetch yields the batches on the device, copying batch k+1 before step k's
sync, with non_blocking copies."""
with SyncCounter() as syncs:
    batches = host_batches(3)
    seen = consume(prefetch(batches, device))
check_equal(len(seen), 3, "the number of batches prefetch yields for 3")
check_type(seen[0], tuple, "each batch prefetch yields")
for k, ((X, y), (X0, y0)) in enumerate(zip(seen, batches)):
    check_close(X.cpu(), X0, rtol=0, atol=0, name=f"batch {k}'s X")
    check_equal(y.tolist(), y0.tolist(), f"batch {k}'s y")
before = copies_before_each_sync(syncs.timeline)
# 2 tensors a batch: before step k's sync, batches 0..k+1 must be on their way
check_that(before[:2] == [4, 6],
           "uploads issued before each step's sync: {before}, expected [4, 6, 6]. "
           "Issue the copy of batch k+1 before you yield batch k: keep one copied "
           "batch in hand.", before=before)
check_equal(before, [4, 6, 6], "uploads issued before each step's sync")
blocking = [op for kind, op, _ in syncs.timeline
            if kind == "upload" and "non_blocking=True" not in op]
check_that(not blocking,
           "{count} copies waited for the device ({first}): pass non_blocking=True "
           "to .to(device)", count=len(blocking), first=blocking[:1])
check_equal(list(prefetch([], device)), [], "prefetch of an empty loader")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "11-prefetch-hidden-test", "points": 2}
"""prefetch matches the reference's values and order on more loaders (hidden)."""
check_equal(list(prefetch([], device)), [], "prefetch of an empty loader")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_got = {}
for _n, _rows, _seed in ((1, 3, 1), (2, 5, 2), (6, 2, 3)):
    with SyncCounter() as _syncs:
        _batches = host_batches(_n, _rows, _seed)
        _seen = outcome(consume, prefetch(_batches, device))
    _label = f"{_n} batches of {_rows} rows"
    _got[f"{_label}: batches"] = _seen
    _got[f"{_label}: uploads before each sync"] = copies_before_each_sync(
        _syncs.timeline)
    _got[f"{_label}: copy calls"] = sorted(
        {op for kind, op, _ in _syncs.timeline if kind == "upload"})
with SyncCounter() as _syncs:
    _lists = [list(b) for b in host_batches(3, 2, 4)]
    _seen = outcome(consume, prefetch(_lists, device))
_got["batches given as lists: what comes out"] = _seen
_got["batches given as lists: uploads before each sync"] = copies_before_each_sync(
    _syncs.timeline)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. A tuned epoch: prefetch, autocast, no synchronisation
#
# Put the recipes together. Mixed precision (Day 10) runs the matrix products in a
# 16-bit format on the GPU's tensor cores: bfloat16 on compute capability 8.0 and later
# (and on a CPU), float16 with a `GradScaler` on older GPUs. Autocast computes the loss
# in float32 whatever the format (its op lists in PyTorch's "Automatic Mixed Precision"
# page), so `cross_entropy` returns float32. The loss of each step stays on the device
# (`loss.detach()`), and the host reads the whole history once, after the epoch.
#
# One synchronisation per step is left where float16 is used: `scaler.step`
# reads whether any gradient was inf or NaN (`found_inf`) with `.item()` to
# decide whether to skip the step (PyTorch's `GradScaler.step` source). bfloat16
# needs no scaler, and so no read.
#
# ### Task 11.2 - `tuned_epoch`

# %% nbgrader={"grade_id": "11-tuned", "solution": true}
def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    """Train `model` for one epoch with prefetched batches and mixed precision.

    Args:
        model: a float32 nn.Module on `device`; optimizer: over its parameters.
        scaler: a torch.amp.GradScaler for device.type, enabled for float16.
        loader: an iterable of (X, y) host batches, at least one; device: a
            torch.device.
        dtype: torch.bfloat16 or torch.float16, the autocast format.

    Each step, for the batches of prefetch(loader, device):
    optimizer.zero_grad(set_to_none=True); inside
    torch.autocast(device_type=device.type, dtype=dtype):
    loss = nn.functional.cross_entropy(model(X), y); then
    scaler.scale(loss).backward(), scaler.step(optimizer), scaler.update().
    Nothing in the epoch reads a value on the host.

    Returns:
        A 1-D float32 tensor on `device`: each step's loss, detached, in order.
    """
    # Hint: collect loss.detach() in a list and torch.stack it at the end.
    ### BEGIN SOLUTION
    losses = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype):
            loss = nn.functional.cross_entropy(model(X), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.detach())
    return torch.stack(losses).float()
    ### END SOLUTION


# %%
def tuned_setup(hidden=32, seed=0, lr=0.1, dtype=torch.bfloat16):
    """A wide_mlp on `device`, its SGD optimizer, and the scaler `dtype` needs."""
    model = wide_mlp(hidden, seed).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)
    return model, optimizer, scaler


# bfloat16 on the CPU and on compute capability 8.0 and later; float16 before
NEW_GPU = ON_GPU and torch.cuda.get_device_capability() >= (8, 0)
AMP_DTYPE = torch.bfloat16 if NEW_GPU or not ON_GPU else torch.float16
model, optimizer, scaler = tuned_setup(SIZE["hidden"], dtype=AMP_DTYPE)
with SyncCounter() as syncs:
    history = tuned_epoch(model, optimizer, scaler, make_loader(pin=True), device,
                          AMP_DTYPE)
print(f"one tuned epoch in {AMP_DTYPE}: {len(history)} steps, {syncs.count} "
      f"synchronisations; losses read once: last {history[-1].item():.3f}")

# %% [markdown]
# The profiler tells the two loops apart by their operators: the naive loop
# reads every loss (`aten::item`), the tuned one never does. On a GPU, its copies
# also turn from pageable to pinned (`Memcpy HtoD (Pinned -> Device)`).

# %% tags=["skip-grading"]
tuned_profile = profiled("tuned steps", tuned_epoch, model, optimizer, scaler,
                         few_pinned, device, AMP_DTYPE)
for label, prof in (("naive", naive_profile), ("tuned", tuned_profile)):
    calls = {e.key: e.count for e in prof.key_averages()}
    copies = {key: n for key, n in calls.items() if key.startswith("Memcpy")}
    print(f"{label}: aten::item called {calls.get('aten::item', 0)} times in 3 "
          f"steps; copies {copies or '(none on a CPU)'}")

# %% nbgrader={"grade": true, "grade_id": "11-tuned-test", "points": 1}
"""tuned_epoch returns the losses on the device, reads nothing inside the epoch,
prefetches its batches and trains in mixed precision."""
model, optimizer, scaler = tuned_setup(dtype=torch.bfloat16)
with SyncCounter() as syncs:
    batches = host_batches(4, rows=16)
    history = tuned_epoch(model, optimizer, scaler, batches, device, torch.bfloat16)
    inside = syncs.count
check_type(history, torch.Tensor, "tuned_epoch(...)")
check_equal(tuple(history.shape), (4,), "the shape of the losses")
check_equal(history.dtype, torch.float32, "the losses' dtype")
check_that(syncs.on_device(history),
           "the losses came back to the host: return torch.stack of loss.detach() "
           "values, and let the caller read them once")
check_that(not inside,
           "{count} synchronisation(s) inside one bfloat16 epoch ({first}): keep "
           "each loss.detach() on the device; with bfloat16 the scaler is disabled "
           "and reads nothing",
           count=inside, first=(syncs.summary().splitlines() + [""] * 2)[1].strip())
queued = [op for kind, op, _ in syncs.timeline
          if kind == "upload" and "non_blocking=True" in op]
check_that(len(queued) == 8,
           "{count} non_blocking copies for 4 batches of (X, y), expected 8: get "
           "the batches from prefetch(loader, device)", count=len(queued))
check_equal({p.dtype for p in model.parameters()}, {torch.float32},
            "the parameters' dtypes (autocast, not model.to(dtype))")
with torch.no_grad():  # the first step's loss, all in float32, on the host
    first32 = nn.functional.cross_entropy(wide_mlp(32)(batches[0][0]), batches[0][1])
first = history[0].cpu()
check_that(not torch.equal(first, first32),
           "the first loss equals the float32 loss to the last bit: run the forward "
           "pass and the loss inside torch.autocast(device_type=device.type, "
           "dtype=dtype)")
check_close(first, first32, rtol=0.05, atol=0.05, name="the first loss")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "11-tuned-hidden-test", "points": 2}
"""tuned_epoch matches the reference in both formats, with its sync and copy
counts (hidden)."""
model, optimizer, scaler = tuned_setup(dtype=torch.bfloat16)
check_type(tuned_epoch(model, optimizer, scaler, host_batches(1, 8), device,
                       torch.bfloat16), torch.Tensor, "tuned_epoch(...)")
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_got = {}
for _dtype, _hidden, _seed, _n in ((torch.bfloat16, 16, 1, 3),
                                   (torch.bfloat16, 48, 2, 5),
                                   (torch.float16, 16, 3, 4)):
    _model, _opt, _scaler = tuned_setup(_hidden, _seed, 0.1, _dtype)
    with SyncCounter() as _syncs:
        _batches = host_batches(_n, 8, _seed)
        _history = outcome(tuned_epoch, _model, _opt, _scaler, _batches, device,
                           _dtype)
        _got[f"{_dtype}, hidden {_hidden}: losses on the device"] = (
            isinstance(_history, torch.Tensor) and _syncs.on_device(_history))
    _label = f"{_dtype}, hidden {_hidden}, {_n} batches"
    _got[f"{_label}: losses"] = Approx(_history, rtol=1e-2, atol=1e-3)
    _got[f"{_label}: weights after the epoch"] = Approx(
        [p.detach().clone() for p in _model.parameters()], rtol=1e-2, atol=1e-3)
    _got[f"{_label}: syncs (float16's scaler reads found_inf)"] = _syncs.count
    _got[f"{_label}: non_blocking copies"] = sum(
        k == "upload" and "non_blocking=True" in op for k, op, _ in _syncs.timeline)
    _got[f"{_label}: loss scale"] = _scaler.get_scale() if _scaler.is_enabled() else 0
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. FLOPs, and how much of the chip you use
#
# A measured rate in samples per second depends on the model. To compare a run with the
# hardware, count the floating-point operations of a training step and divide by the
# chip's peak: **model FLOP utilisation** (MFU). PyTorch counts them for you:
# `torch.utils.flop_counter.FlopCounterMode` adds up the matrix products of everything
# run inside it, the backward pass included (`get_total_flops()`). A common shortcut
# says 6 FLOPs per parameter and sample (2 forward, 4 backward); the counter is exact,
# and the shortcut is not (the first layer's input needs no gradient, and biases are not
# matrix products).
#
# ### Task 11.3 - `flops_per_sample`

# %% nbgrader={"grade_id": "11-flops", "solution": true}
def flops_per_sample(model, X, y):
    """FLOPs of one training step on the batch (X, y), per sample.

    Args:
        model: an nn.Module; X: a batch (n, features); y: its int64 labels (n,).

    Returns:
        A float: the total FlopCounterMode counts (display=False) while
        nn.functional.cross_entropy(model(X), y) is computed and its backward()
        run, divided by len(X).
    """
    # Hint: `with FlopCounterMode(display=False) as counter:`, then
    # counter.get_total_flops() after the block.
    ### BEGIN SOLUTION
    with FlopCounterMode(display=False) as counter:
        nn.functional.cross_entropy(model(X), y).backward()
    return counter.get_total_flops() / len(X)
    ### END SOLUTION


# %%
with torch.device("meta"):  # FLOPs are counted from shapes: no data needed
    big = wide_mlp(SIZE["hidden"])
per_sample = flops_per_sample(big, X_all[:64].to("meta"), y_all[:64].to("meta"))
shortcut = 6 * n_params
print(f"{per_sample:,.0f} FLOPs per sample counted; 6 x parameters says {shortcut:,}")

# %% nbgrader={"grade": true, "grade_id": "11-flops-test", "points": 1}
"""flops_per_sample counts forward and backward of a small MLP exactly."""
small = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
got = flops_per_sample(small, torch.randn(8, 64), torch.randint(0, 10, (8,)))
check_type(got, float, "flops_per_sample(...)")
forward = 2 * (64 * 32 + 32 * 10)
check_that(got != forward,
           "flops_per_sample counts the forward pass only: call .backward() on the "
           "loss inside the FlopCounterMode block")
check_equal(got, 316.0 * 32, "FLOPs per sample of a 64-32-10 MLP")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "11-flops-hidden-test", "points": 2}
"""flops_per_sample matches the reference on more models and batches (hidden)."""
check_type(flops_per_sample(nn.Linear(64, 10), torch.randn(2, 64),
                            torch.randint(0, 10, (2,))), float, "flops_per_sample")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_got = {}
for _hidden, _rows in ((16, 4), (100, 33), (256, 128)):
    _X, _y = X_all[:_rows], y_all[:_rows]
    _got[f"wide_mlp({_hidden}), batch {_rows}"] = outcome(
        flops_per_sample, wide_mlp(_hidden), _X, _y)
_got["one linear layer, batch 5"] = outcome(
    flops_per_sample, nn.Linear(64, 10), X_all[:5], y_all[:5])
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. TF32, and the naive loop against the tuned one
#
# On NVIDIA GPUs from compute capability 8.0, float32 matrix products can run on
# tensor cores in TF32 (float32's range, a 10-bit mantissa). PyTorch leaves it
# off for matrix products by default; `torch.set_float32_matmul_precision("high")`
# switches it on (PyTorch documentation, "TensorFloat-32 (TF32) on Ampere (and
# later) devices"). On a CPU the setting changes nothing.
#
# Now the payoff: the same epochs timed by `torch.utils.benchmark`, one recipe at
# a time: naive; with TF32 (on a GPU); fed by `prefetch` from pinned memory, with
# the losses kept on the device, still in float32; and tuned (mixed precision
# too). On a GPU, the report adds MFU from
# `gpumodel.utilisation`, against the spec-sheet peak of the format used (the
# lesson knows the chips in `gpumodel.GPUS`).

# %% tags=["skip-grading"]
if ON_GPU:  # on a CPU, TF32 changes nothing: not timed
    torch.set_float32_matmul_precision("high")
    model = wide_mlp(SIZE["hidden"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    rates["naive, TF32"] = samples_per_second(naive_epoch, model, optimizer,
                                              make_loader())
    torch.set_float32_matmul_precision("highest")


def prefetched_epoch(model, optimizer, loader):
    """The feeding recipes alone: prefetched batches and losses kept on the
    device, in float32."""
    losses = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses)


model = wide_mlp(SIZE["hidden"]).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
rates["prefetched"] = samples_per_second(prefetched_epoch, model, optimizer,
                                         make_loader(pin=True))
model, optimizer, scaler = tuned_setup(SIZE["hidden"], dtype=AMP_DTYPE)
rates["tuned"] = samples_per_second(tuned_epoch, model, optimizer, scaler,
                                    make_loader(pin=True), device, AMP_DTYPE)
for name, rate in rates.items():
    print(f"{name:>11}: {rate:12,.0f} samples/s  ({rate * per_sample / 1e12:.3f} "
          "TFLOP/s achieved)")
print(f"tuned against naive: {rates['tuned'] / rates['naive']:.2f}x, measured on "
      f"{device} just now")
gpu_key = gpumodel.spec_key(torch.cuda.get_device_name()) if ON_GPU else None
if gpu_key is not None:
    tuned_format = "bf16" if AMP_DTYPE == torch.bfloat16 else "fp16"
    for label, precision in (("naive", "fp32"), ("naive, TF32", "tf32"),
                             ("prefetched", "fp32"), ("tuned", tuned_format)):
        try:
            mfu = gpumodel.utilisation(rates[label] * per_sample, gpu_key, precision)
        except LookupError as exc:  # no such tensor cores on this chip
            print(f"{label}: {exc}")
            continue
        print(f"{label}: MFU {mfu:.1%} of the {precision} peak of {gpu_key} "
              "(measured rate over the spec sheet's peak)")
else:
    print(f"MFU needs a GPU the course knows ({sorted(gpumodel.GPUS)}); here: "
          f"{device}")
plot_timings({name: 1 / rate for name, rate in rates.items()},
             title=f"Time per sample, measured on {device}")
show("11_naive_vs_tuned")

# %% [markdown]
# On a CPU the tuned loop is usually no faster, or slower (the rates printed above
# say how it went here): a CPU without bfloat16 matrix units emulates the format,
# and there is nothing to copy or to overlap. The recipes are for the GPU, where
# the copies, the waits and the tensor cores are real.
#
# **`torch.compile`** traces the model and fuses its elementwise operations
# into fewer, larger kernels (Day 10 counted the launches it saves). Inductor,
# its compiler, needs a C++ compiler and worker processes, which the grader's
# sandbox refuses, so this cell runs only on a GPU and is never graded.

# %% tags=["skip-grading"]
if ON_GPU:
    compiled = torch.compile(wide_mlp(SIZE["hidden"]).to(device))
    opt_c = torch.optim.SGD(compiled.parameters(), lr=0.1)
    scaler_c = torch.amp.GradScaler(device.type, enabled=AMP_DTYPE == torch.float16)
    tuned_epoch(compiled, opt_c, scaler_c, make_loader(pin=True), device, AMP_DTYPE)
    rates["compiled"] = samples_per_second(tuned_epoch, compiled, opt_c, scaler_c,
                                           make_loader(pin=True), device, AMP_DTYPE)
    print(f"compiled: {rates['compiled']:,.0f} samples/s")
else:
    print("torch.compile is shown on a GPU only (see the text above).")

# %% [markdown]
# ## Summary
#
# - A GPU wins when each step gives it enough work: mini-batches of a wide model,
#   not the whole of a tiny one.
# - Feed it: `pin_memory=True`, copies with `non_blocking=True` issued one batch
#   ahead (`prefetch`), and no `.item()` inside the epoch.
# - Mixed precision: bfloat16 with `torch.autocast`; float16 needs a `GradScaler`,
#   which reads `found_inf` once per step.
# - Measure with `torch.utils.benchmark` and `torch.profiler`; count FLOPs with
#   `FlopCounterMode`; MFU says how much of the chip a run uses.
#
# **Open exercises.**
#
# 1. Time `make_loader(pin=True)` with `num_workers=2` on your machine (outside
#    the grader). When do workers help?
# 2. Add `torch.cuda.set_sync_debug_mode("warn")` around `naive_epoch` on a GPU:
#    which line does PyTorch point at?
# 3. Double `SIZE["batch"]`: what happens to samples per second and to MFU?
#
# ## Going further: a recorded run
#
# `make gpu-check ONLY=11` runs this Day as a script on a GPU box and keeps its
# output under `$OUT`; the run is then committed under `docs/gpu-runs/` with its
# hardware and date. No GPU run of this Day is recorded yet, so this section has
# no GPU figures to show.
