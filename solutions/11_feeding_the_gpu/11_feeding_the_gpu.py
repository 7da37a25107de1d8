# %% [markdown]
# # Day 11 - Feeding the GPU: data on the device, a loader that keeps up, two streams
#
# Every model you trained so far was tiny and saw all its data at once, so on a GPU it
# loses, as Day 03 measured: the GPU finishes each small operation before the host has
# queued the next. The learner's article of Day 05 found the cure for its own loop (take
# the copies out of it: "10-15 s", "≈60x faster"). Today you train a model large enough
# for a GPU to win, on mini-batches, and keep the GPU fed. That takes three recipes, in
# this order: keep the data on the device when it fits (Day 02's lesson, applied);
# when it does not, a loader that fetches whole batches; and copies that run *beside*
# the compute, on a second CUDA stream. Then mixed precision, FLOPs and MFU. Each step
# is measured with the field's tools, and what a CPU cannot show is modelled for named
# GPUs.
#
# **Learning objectives.** By the end of this notebook you can
#
# - say why a `DataLoader` over a `TensorDataset` fetches a batch row by row, and
#   measure a loader's time per batch beside a training step's;
# - keep a dataset that fits on the device, and shuffle each epoch with a
#   permutation made there;
# - fetch whole batches (a `BatchSampler` with `batch_size=None`), and say when
#   `num_workers` and `pin_memory` matter;
# - overlap copies with compute on a side stream: `torch.cuda.Stream`,
#   `wait_stream` and `record_stream`;
# - train an epoch with `torch.autocast` (bfloat16, or float16 with a
#   `GradScaler`) and without a single host-device synchronisation;
# - count a model's FLOPs with `torch.utils.flop_counter.FlopCounterMode`, and
#   turn a training rate into model FLOP utilisation (MFU).
#
# **Time.** About 40 minutes of reading and 45 minutes of exercises (3 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 11_feeding_the_gpu.ipynb`, which grades your own copy) also runs *hidden*
# tests, which compare your function with a reference answer on more inputs; a
# failed one says what differs, without the reference's values. Passing the
# visible test is a good sign, not a guarantee.
#
# **No GPU needed for the tasks.** On a laptop the model is small, every cell runs
# on the CPU, and the order of copies, streams and synchronisations is checked on a
# simulated GPU (`SyncCounter`, Day 03: it records each copy's stream and each
# wait). On a GPU the same cells use a model large enough to win, and report measured
# samples per second and MFU.

# %%
import itertools

import matplotlib.pyplot as plt
import torch
from sklearn.datasets import load_digits
from torch import nn
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset
from torch.utils.flop_counter import FlopCounterMode

from course import gpumodel
from course.checks import check_close, check_equal, check_that, check_type
from course.devices import pick_amp, pick_device
from course.diagrams import diagram
from course.plots import show
from course.streams import read_streams
from course.sync import SyncCounter, mark_host
from course.timing import compare

device = pick_device()
ON_GPU = device.type == "cuda"
# The sizes a GPU trains at; a laptop trains a smaller model on fewer samples.
GPU_SIZE = dict(hidden=8192, batch=4096, copies=64)
SIZE = GPU_SIZE if ON_GPU else dict(hidden=256, batch=128, copies=1)
print(f"Running on {device}; model and data sizes: {SIZE}")

# %% [markdown]
# ## 1. The data and the model
#
# scikit-learn ships 1,797 handwritten digits of 8 x 8 pixels (64 features, 10
# classes): nothing is downloaded. At a GPU's sizes the lesson repeats them with a
# little noise (`copies` in `SIZE`) so that an epoch has enough batches to time. The
# model is a wide MLP: two hidden layers of `hidden` units.
#
# The data starts on the host, as data read from disk does. `mark_host` tells the
# simulated GPU so (on a CPU it takes every tensor made before a counter's block to
# be on the device; on a GPU, `t.device` says where a tensor is).

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


X_all, y_all = mark_host(*digits(SIZE["copies"]))
dataset = TensorDataset(X_all, y_all)
with torch.device("meta"):  # sized without allocating (Day 01)
    n_params = sum(p.numel() for p in wide_mlp(SIZE["hidden"]).parameters())
    gpu_rows = 1797 * GPU_SIZE["copies"]
gpu_features, gpu_labels = gpu_rows * 64 * 4, gpu_rows * 8  # float32, int64
print(f"{len(dataset):,} samples; the model has {n_params:,} parameters")
print(f"At a GPU's sizes: {gpu_rows:,} samples, {gpu_features / 1e6:.1f} MB of "
      f"features and {gpu_labels / 1e6:.1f} MB of labels (an H100 has 80 GB)")

# %% [markdown]
# ## 2. The naive loop
#
# A `DataLoader` cuts the data into shuffled mini-batches. The naive loop copies
# each batch with a plain `.to(device)` and reads the loss with `.item()` every step,
# to log it. Each of the three is a synchronisation (Day 03's sync rules: a copy from
# pageable memory to the device makes the host wait for it), so the host can never
# run ahead of the GPU.

# %%
def row_loader(data, batch, seed=0, pin=False):
    """The usual DataLoader: shuffled batches of `batch` rows of `data`, the same
    order per seed. `pin` asks for pinned memory (only where CUDA is)."""
    return DataLoader(data, batch_size=batch, shuffle=True,
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
    losses = naive_epoch(model, optimizer, row_loader(dataset, SIZE["batch"]))
print(f"one naive epoch: {len(losses)} steps, {syncs.count} synchronisations "
      f"({syncs.by_op()}), last loss {losses[-1]:.3f}")

# %% [markdown]
# ## 3. Where the time goes: the loader against the step
#
# A `TensorDataset` has no `__getitems__`, so the `DataLoader` fetches a batch one row
# at a time: it calls `dataset[i]` for each index of the batch, then stacks the rows
# (`collate`), all on the host, in the main process (`torch.utils.data`'s fetcher;
# with `pin_memory=True` it then copies the batch into pinned memory, in a thread of
# the main process). A loader that is slower than the GPU's step sets the pace of
# training, whatever the GPU: the cell below measures the one against the other.
#
# The cell below times three ways of getting batches of a GPU's size (4,096 rows) on
# this machine, back to back in alternating rounds with 95% intervals (Day 03's
# `compare`): the usual `DataLoader`; a `DataLoader` that fetches whole batches
# (section 5); and indexing the tensors with a permutation (section 4). The loader
# runs on the host, so these are the times a GPU box with this CPU would see too.
# Beside them, the step those batches feed, at the same sizes: 405 MFLOP a sample
# (section 8 counts it), so 1.66 TFLOP a batch, which a CPU cannot run in a lesson's
# time. Its time on GPUs is modelled, from the course's cost model (its error against
# recorded runs is printed with it).

# %%
def batch_loader(data, batch, seed=0, pin=False):
    """Shuffled batches of `data` fetched whole: `data[list_of_indices]` once per
    batch (a BatchSampler, and batch_size=None so nothing is collated)."""
    shuffled = RandomSampler(data, generator=torch.Generator().manual_seed(seed))
    sampler = BatchSampler(shuffled, batch_size=batch, drop_last=False)
    return DataLoader(data, sampler=sampler, batch_size=None,
                      pin_memory=pin and torch.cuda.is_available(), num_workers=0)


# %% tags=["skip-grading"]
X_big, y_big = digits(GPU_SIZE["copies"])
big_set, B = TensorDataset(X_big, y_big), GPU_SIZE["batch"]
TIMED = 3  # batches per timed call
order = torch.randperm(len(X_big), generator=torch.Generator().manual_seed(0))


def by_index():
    return [(X_big[order[k * B:(k + 1) * B]], y_big[order[k * B:(k + 1) * B]])
            for k in range(TIMED)]


fetches = {
    "DataLoader, row by row": lambda: list(
        itertools.islice(row_loader(big_set, B), TIMED)),
    "DataLoader, whole batches": lambda: list(
        itertools.islice(batch_loader(big_set, B), TIMED)),
    "indexing the tensors": by_index,
}
fetch_times, _ = compare(fetches, "indexing the tensors", seconds=4, min_rounds=5)
per_batch = {}
for name, result in fetch_times.items():
    q1, q3 = (t / TIMED for t in result.quartiles)
    per_batch[name] = result.median / TIMED
    print(f"{name:>26}: {per_batch[name] * 1e3:7.2f} ms a batch of {B:,} rows "
          f"(quartiles {q1 * 1e3:.2f}-{q3 * 1e3:.2f} ms, {len(result.times)} rounds; "
          "measured here)")

# The step at the same sizes, traced on the meta device (no memory, no arithmetic)
with torch.device("meta"):
    meta_model = wide_mlp(GPU_SIZE["hidden"])
    X_meta, y_meta = torch.empty(B, 64), torch.zeros(B, dtype=torch.int64)
meta_optimizer = torch.optim.SGD(meta_model.parameters(), lr=0.1)


def meta_step():
    meta_optimizer.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(meta_model(X_meta), y_meta).backward()
    meta_optimizer.step()


def sixteen_bit(spec):
    """The 16-bit format of a chip's tensor cores, by Day 10's rule: bfloat16
    where it has them, else float16 (with a GradScaler); None: neither."""
    formats = dict(spec.tensor_tflops)
    return (torch.bfloat16 if "bf16" in formats
            else torch.float16 if "fp16" in formats else None)


step32 = gpumodel.trace(meta_step)
print(f"\nthe step on one batch: {step32.flops / 1e12:.2f} TFLOP, {step32.launches} "
      "kernels; modelled, not measured:")
for key in ("t4", "a100", "h100"):
    spec = gpumodel.GPUS[key]
    t32 = gpumodel.estimate(step32, spec, repeat=10).seconds / 10
    t16 = gpumodel.estimate(gpumodel.autocast_trace(step32, sixteen_bit(spec)), spec,
                            repeat=10).seconds / 10
    print(f"  {spec.name:>26}: {t32 * 1e3:7.2f} ms in float32, {t16 * 1e3:6.2f} ms "
          f"in {sixteen_bit(spec)}")
print(gpumodel.accuracy_for("pytorch loop"))
print(gpumodel.accuracy_for("16-bit tensor-core matmul"))

# %% [markdown]
# Compare the loader's time with the step's, measured and modelled above: where the
# loader takes longer, the GPU waits for it, and no setting of the GPU (16-bit
# formats, TF32, compilation) makes training faster. In float32 the modelled step is
# long enough to hide the usual loader on some chips; the faster the step, the sooner
# the loader sets the pace.
#
# `torch.profiler` (Day 03) shows the loader's work from inside a loop. Profiled over
# three batches, the naive loop calls `aten::select` once per row and tensor (the
# row-by-row fetch), `aten::stack` once per tensor and batch (the collate), and
# `aten::item` with `aten::_local_scalar_dense` (the wait for the loss) once per step;
# on a GPU it adds a `Memcpy HtoD (Pageable -> Device)` per tensor. The cell prints
# those rows of the profiler's table.

# %% tags=["skip-grading"]
activities = [torch.profiler.ProfilerActivity.CPU]
if ON_GPU:
    activities.append(torch.profiler.ProfilerActivity.CUDA)
NAMED = ("aten::select", "aten::stack", "aten::index", "aten::item",
         "aten::_local_scalar_dense")


def profiled(label, epoch_fn, *args):
    """Profile `epoch_fn(*args)` in a record_function range; return the profile."""
    with torch.profiler.profile(activities=activities) as prof:
        with torch.profiler.record_function(label):
            epoch_fn(*args)
    return prof


def named_rows(prof):
    """The rows of the profiler's table that the text names."""
    for event in prof.key_averages():
        if event.key in NAMED or event.key.startswith("Memcpy"):
            print(f"  {event.key:<38} {event.count:4d} calls, "
                  f"{event.self_cpu_time_total / 1e3:8.3f} ms self CPU")


naive_profile = profiled("naive steps", naive_epoch, model, optimizer,
                         itertools.islice(row_loader(dataset, SIZE["batch"]), 3))
print("naive loop, 3 steps:")
named_rows(naive_profile)

# %% [markdown]
# ## 4. Recipe 1: keep the data on the device
#
# Day 02's lesson applies to data too: move it once, not every step. At a GPU's
# sizes the whole dataset is the 29 MB printed in section 1, a sliver of a GPU's
# memory. Copy it to the device once; each epoch, make a permutation *on the device*
# (`torch.randperm(..., device=...)` with a device generator) and index the tensors
# with slices of it. Nothing is fetched, collated, pinned or copied in the loop, and
# nothing waits: indexing with a tensor of indices keeps the size known, so it is
# not a sync (Day 03's rules). This is the first recipe whenever the data fits.

# %%
def device_batches(X, y, batch, generator):
    """Shuffled mini-batches of (X, y), which are on the device already: a
    permutation made there, then slices of it as indices."""
    order = torch.randperm(len(X), device=X.device, generator=generator)
    for start in range(0, len(X), batch):
        take = order[start:start + batch]
        yield X[take], y[take]


def lean_epoch(model, optimizer, batches):
    """One float32 epoch on batches already on the device, the losses kept
    there too."""
    losses = []
    for Xb, yb in batches:
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(Xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses)


model = wide_mlp(SIZE["hidden"]).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
shuffle = torch.Generator(device=device).manual_seed(0)
with SyncCounter() as syncs:
    X_dev, y_dev = X_all.to(device), y_all.to(device)  # once
    uploads = syncs.count
    history = lean_epoch(model, optimizer,
                         device_batches(X_dev, y_dev, SIZE["batch"], shuffle))
    inside = syncs.count - uploads
print(f"data on the device: {uploads} synchronisations to copy it there once, "
      f"{inside} in an epoch of {len(history)} steps; last loss "
      f"{history[-1].item():.3f}")

# %% [markdown]
# ## 5. Recipe 2: a loader that keeps up
#
# When the data does not fit, or is made on the fly (read from disk, decoded,
# augmented), it comes from the host. Then fetch *whole batches*: a `BatchSampler`
# hands the `DataLoader` a list of indices, and `batch_size=None` tells it not to
# batch again, so it calls `dataset[list_of_indices]` once per batch (`batch_loader`
# in section 3). A dataset of your own can instead define `__getitems__(indices)`,
# which the `DataLoader` calls with the whole batch's indices. Section 3 measured
# the difference.
#
# Two more settings (PyTorch documentation, `torch.utils.data`, "Memory Pinning" and
# "Single- and Multi-process Data Loading"):
#
# - `num_workers=N` prepares batches in N worker processes, while the main process
#   trains. That pays when preparing a batch (the loader's time, as section 3
#   measures it) is longer than a step, and the work is more than cutting rows from
#   a tensor: each batch then crosses to the main process through shared memory
#   (`/dev/shm`). A sandbox without it, such as the grader's, must use
#   `num_workers=0`, as this lesson does.
# - `pin_memory=True` puts each batch in page-locked memory, which the GPU reads
#   directly (Day 02 measured the difference); only from pinned memory does a copy
#   with `non_blocking=True` leave the host free at once. Pinning is itself a copy on
#   the host, made in a thread of the main process: it pays where the copy to the
#   device is on the critical path, which is the next section's business. A CPU
#   without CUDA cannot pin, so this lesson pins only on a GPU.

# %% [markdown]
# ## 6. Recipe 3: copies beside the compute, on a second stream
#
# A GPU runs the work of one *stream* in the order it was issued (PyTorch
# documentation, "CUDA semantics"). Everything so far ran on the default stream, so a
# copy to the device ran between two steps, never beside one. Issuing the copy of
# batch k+1 earlier, before step k, does not change that: on one stream it runs
# before step k's kernels, and the GPU does the same serial work.
# `X.to(device, non_blocking=True)` from pinned memory frees the *host* (it queues
# the copy and returns), not the GPU.
#
# A copy runs beside compute only on a second stream (PyTorch documentation, "CUDA
# semantics"):
#
# ```python
# side = torch.cuda.Stream()                       # once
# with torch.cuda.stream(side):                    # work issued here goes to `side`
#     X_next = X_host.to(device, non_blocking=True)
# compute = torch.cuda.current_stream()            # where the steps run
# compute.wait_stream(side)       # later compute waits for what `side` has queued
# X_next.record_stream(compute)   # the allocator: this memory is used on `compute`
# ```
#
# `wait_stream` makes the compute stream's *later* work wait for everything queued on
# `side` so far; it does not block the host. So the order matters: make the compute
# stream wait for batch k's copy *before* issuing batch k+1's, and batch k+1's copy
# runs while step k computes. `record_stream` (PyTorch documentation,
# `Tensor.record_stream`) is needed because the batch's memory was allocated on
# `side`: without it, once your code drops the batch, PyTorch's caching allocator may
# hand the memory out again for `side`'s next copy while a step on the compute stream
# still reads it.

# %%
diagram("copy_streams")

# %% [markdown]
# On a machine without CUDA, the course gives `torch.cuda` a simulated `Stream`,
# `stream()`, `current_stream()` and `record_stream` (`course.streams`), so the same
# code runs: outside a `SyncCounter` the calls do nothing, and inside one they are
# recorded, with the stream of each copy.
#
# ### Task 11.1 - `prefetch`

# %% nbgrader={"grade_id": "11-prefetch", "solution": true}
def prefetch(loader, device):
    """Yield the batches of `loader` on `device`, each copied one batch ahead on a
    side stream.

    Args:
        loader: an iterable of batches, each a tuple or list of tensors (for
            example a DataLoader's (X, y)).
        device: the torch.device to copy to.

    Yields:
        Each batch as a tuple of tensors on `device`, in the loader's order.
        - Copies: every tensor with tensor.to(device, non_blocking=True), issued
          inside `with torch.cuda.stream(side):` on one side stream made with
          torch.cuda.Stream(); each batch is yielded outside that block, so the
          step that uses it runs on the compute stream.
        - One ahead: the copy of batch k+1 is issued before batch k is yielded
          (the first batch is copied before anything is yielded; nothing is
          copied further ahead).
        - Before yielding batch k: the compute stream (torch.cuda.current_stream()
          outside the `with` block) waits for the side stream with
          compute.wait_stream(side), issued before batch k+1's copy, so that
          the step of batch k does not wait for batch k+1; and each tensor of
          batch k gets tensor.record_stream(compute).
        An empty loader yields nothing.
    """
    # Hint: keep one copied batch in hand; next(iterator) gives the first.
    ### BEGIN SOLUTION
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()

    def copied(batch):
        with torch.cuda.stream(side):
            return tuple(t.to(device, non_blocking=True) for t in batch)

    def ready(batch):
        compute.wait_stream(side)
        for tensor in batch:
            tensor.record_stream(compute)
        return batch

    batches = iter(loader)
    try:
        ahead = copied(next(batches))
    except StopIteration:
        return
    for batch in batches:
        current = ready(ahead)
        ahead = copied(batch)
        yield current
    yield ready(ahead)
    ### END SOLUTION


# %% [markdown]
# Three helpers check it on a CPU: `host_batches` makes batches on the host, as a
# `DataLoader` would; `consume` runs one "step" per batch, reading the batch and
# ending in a synchronisation (a loss read); and `course.streams.read_streams` reads
# `SyncCounter.timeline`, where the counter keeps each copy (with its stream), each
# wait, each use and each `record_stream` in order with the syncs.

# %%
def host_batches(n_batches, rows=4, seed=0):
    """`n_batches` (X, y) pairs made on the host, as a DataLoader hands them out."""
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(rows, 64, generator=generator),
             torch.randint(0, 10, (rows,), generator=generator))
            for _ in range(n_batches)]


def consume(batches):
    """One 'step' per batch: it reads X and y, and ends in a synchronisation."""
    seen = []
    for X, y in batches:
        seen.append((X, y))
        float(X.sum() + y.sum())
    return seen


with SyncCounter() as syncs:
    seen = consume(prefetch(host_batches(3), device))
facts = read_streams(syncs.timeline)
for kind, op, _ in syncs.timeline:
    print(f"{kind:>7}: {op}")
print("copies issued before each step's sync:", facts.copies_before_each_sync)
print("last copy the compute stream waited for, before each step's sync:",
      facts.waited_before_each_sync)

# %% nbgrader={"grade": true, "grade_id": "11-prefetch-test", "points": 1}
"""prefetch yields the batches on the device, copying batch k+1 on a side stream
before step k's sync, with waits and record_stream."""
with SyncCounter() as syncs:
    batches = host_batches(3)
    seen = consume(prefetch(batches, device))
check_equal(len(seen), 3, "the number of batches prefetch yields for 3")
check_type(seen[0], tuple, "each batch prefetch yields")
for k, ((X, y), (X0, y0)) in enumerate(zip(seen, batches)):
    check_close(X.cpu(), X0, rtol=0, atol=0, name=f"batch {k}'s X")
    check_equal(y.tolist(), y0.tolist(), f"batch {k}'s y")
facts = read_streams(syncs.timeline)
check_that(len(facts.copies) == 6,
           "{count} copies to the device for 3 batches of (X, y), expected 6: copy "
           "each tensor once, with tensor.to(device, non_blocking=True)",
           count=len(facts.copies))
on_compute = [c.number for c in facts.copies if c.stream == 0]
check_that(not on_compute,
           "copies {numbers} ran on the compute stream, where they cannot overlap a "
           "step: make side = torch.cuda.Stream() and issue each copy inside "
           "`with torch.cuda.stream(side):`", numbers=on_compute)
on_side = [c.number for c in facts.copies if any(c.used_on)]
check_that(not on_side,
           "copies {numbers} were read on the side stream, so the steps ran there "
           "too and nothing overlapped: yield each batch outside the "
           "`with torch.cuda.stream(side):` block", numbers=on_side)
blocking = [c.op for c in facts.copies if "non_blocking=True" not in c.op]
check_that(not blocking,
           "{count} copies waited for the device ({first}): pass non_blocking=True "
           "to .to(device)", count=len(blocking), first=blocking[:1])
before = facts.copies_before_each_sync
check_that(before == [4, 6, 6],
           "copies issued before each step's sync: {before}, expected [4, 6, 6]. "
           "Issue the copy of batch k+1 before you yield batch k: keep one copied "
           "batch in hand.", before=before)
early = [c.number for c in facts.copies if c.used_before_a_wait]
check_that(not early,
           "copies {numbers} were read on the compute stream before it waited for "
           "the side stream: call torch.cuda.current_stream().wait_stream(side) "
           "before you yield a batch", numbers=early)
unrecorded = [c.number for c in facts.copies if 0 not in c.recorded_for]
check_that(not unrecorded,
           "copies {numbers} were not recorded for the compute stream, so the "
           "allocator may reuse their memory while a step reads it: call "
           "tensor.record_stream(torch.cuda.current_stream()) on each tensor you "
           "yield", numbers=unrecorded)
waited = facts.waited_before_each_sync
check_that(waited == [2, 4, 6],
           "before each step's sync the compute stream had waited for copies up to "
           "{waited}, expected [2, 4, 6]: step k waited for batch k+1's copy too, "
           "so that copy could not run beside it. Call wait_stream before you issue "
           "the next batch's copy.", waited=waited)
check_equal(list(prefetch([], device)), [], "prefetch of an empty loader")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "11-prefetch-hidden-test", "points": 2}
"""prefetch matches the reference's values, streams, waits and order on more
loaders (hidden)."""
check_equal(list(prefetch([], device)), [], "prefetch of an empty loader")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit


def _stream_words(timeline):
    """What the timeline says of prefetch, in words a message can name."""
    _facts = read_streams(timeline)
    return {
        "the stream each copy was issued on": [
            "the compute stream" if c.stream == 0 else "a side stream"
            for c in _facts.copies],
        "copies issued before each step's sync (batch k+1's before step k's)":
            _facts.copies_before_each_sync,
        "the last copy the compute stream waited for before each step's sync "
        "(batch k's, not batch k+1's)": _facts.waited_before_each_sync,
        "the streams whose steps read each copy": [
            ["the compute stream" if s == 0 else "a side stream" for s in c.used_on]
            for c in _facts.copies],
        "copies read on the compute stream before it waited for them": [
            c.number for c in _facts.copies if c.used_before_a_wait],
        "copies not recorded for the compute stream (record_stream)": [
            c.number for c in _facts.copies if 0 not in c.recorded_for],
        "copies issued without non_blocking=True": [
            c.number for c in _facts.copies if "non_blocking=True" not in c.op],
    }


_got = {}
for _n, _rows, _seed in ((1, 3, 1), (2, 5, 2), (6, 2, 3)):
    with SyncCounter() as _syncs:
        _batches = host_batches(_n, _rows, _seed)
        _seen = outcome(consume, prefetch(_batches, device))
    _label = f"{_n} batches of {_rows} rows"
    _got[f"{_label}: the batches prefetch yields"] = _seen
    for _what, _value in _stream_words(_syncs.timeline).items():
        _got[f"{_label}: {_what}"] = _value
with SyncCounter() as _syncs:
    _lists = [list(b) for b in host_batches(3, 2, 4)]
    _seen = outcome(consume, prefetch(_lists, device))
_got["batches given as lists: the batches prefetch yields"] = _seen
for _what, _value in _stream_words(_syncs.timeline).items():
    _got[f"batches given as lists: {_what}"] = _value
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. A tuned epoch: a side stream, autocast, no synchronisation
#
# Put the recipes together for data that comes from a loader. Mixed precision
# (Day 10) runs the matrix products in a 16-bit format on the GPU's tensor cores, by
# Day 10's rule (`pick_amp`, in `course.devices`): bfloat16 on compute capability
# 8.0 and later (and on a CPU), float16 with a `GradScaler` on compute capability
# 7.x, and float32 on older GPUs, which run float16 slowly. Autocast computes the
# loss in float32 whatever the format (its op lists in PyTorch's "Automatic Mixed
# Precision" page), so `cross_entropy` returns float32. The loss of each step stays
# on the device (`loss.detach()`), and the host reads the whole history once, after
# the epoch.
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


AMP_DTYPE, _ = pick_amp(device)  # Day 10's rule
if AMP_DTYPE is None:
    print(f"{device} has no fast 16-bit format for autocast (Day 10): the tuned loop "
          "runs in float32 here")
    AMP_DTYPE = torch.float32
model, optimizer, scaler = tuned_setup(SIZE["hidden"], dtype=AMP_DTYPE)
with SyncCounter() as syncs:
    history = tuned_epoch(model, optimizer, scaler,
                          batch_loader(dataset, SIZE["batch"], pin=True), device,
                          AMP_DTYPE)
print(f"one tuned epoch in {AMP_DTYPE}: {len(history)} steps, {syncs.count} "
      f"synchronisations; losses read once: last {history[-1].item():.3f}")

# %% [markdown]
# The profiler tells the loops apart by their operators: the tuned loop fetches each
# batch with one `aten::index` per tensor instead of a `aten::select` per row, and
# reads no loss (no `aten::item`); its one `aten::stack` gathers the losses at the
# end. On a GPU, its copies also turn from pageable to pinned (`Memcpy HtoD (Pinned
# -> Device)`).

# %% tags=["skip-grading"]
tuned_profile = profiled(
    "tuned steps", tuned_epoch, model, optimizer, scaler,
    itertools.islice(batch_loader(dataset, SIZE["batch"], pin=True), 3), device,
    AMP_DTYPE)
print("tuned loop, 3 steps:")
named_rows(tuned_profile)

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
    _why = ("bfloat16: none, the scaler is disabled" if _dtype == torch.bfloat16
            else "float16: one a step, the scaler's read of found_inf")
    _got[f"{_label}: syncs in the epoch ({_why})"] = _syncs.count
    _got[f"{_label}: copies with non_blocking=True (two a batch: prefetch)"] = sum(
        k == "upload" and "non_blocking=True" in op for k, op, _ in _syncs.timeline)
    _got[f"{_label}: the scaler's loss scale after the epoch (0: disabled)"] = (
        _scaler.get_scale() if _scaler.is_enabled() else 0)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. FLOPs, and how much of the chip you use
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
    _got[f"FLOPs per sample of wide_mlp({_hidden}), batch {_rows} (forward and "
         "backward)"] = outcome(
        flops_per_sample, wide_mlp(_hidden), _X, _y)
_got["FLOPs per sample of one linear layer, batch 5 (forward and backward)"] = outcome(
    flops_per_sample, nn.Linear(64, 10), X_all[:5], y_all[:5])
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 9. The loops back to back
#
# Now the loops, timed in one cell, in alternating rounds with 95% intervals (Day
# 03's `compare`), each against the naive loop: naive; data on the device (recipe 1,
# float32); whole batches through `prefetch`, losses on the device (recipes 2 and 3,
# float32); and tuned (Task 11.2, mixed precision too). The loader alone is timed
# beside them, so you can see its share of the naive epoch. Torch runs on all its
# threads here, as the loops do in training (`torch.utils.benchmark.Timer` would time
# one thread unless given `num_threads=torch.get_num_threads()`). On a GPU the
# report adds MFU, against the spec-sheet peak of the format used
# (`gpumodel.utilisation`), with TF32 switched on for float32 matrix products
# (`torch.set_float32_matmul_precision("high")`, PyTorch documentation, "TensorFloat-32
# (TF32) on Ampere (and later) devices"; on a CPU it changes nothing).
#
# What each loop does on a CPU: there is no copy (the "device" is the host), no
# waiting (nothing is queued), and the streams are simulated and do nothing. The
# naive and resident loops differ by the loader's work; the prefetched loop fetches
# each batch with one indexing call instead of one per row; and the tuned loop pays
# for bfloat16, which a CPU without bfloat16 matrix units emulates. Only the
# loader's share is a figure a GPU box with this CPU would also see.

# %% tags=["skip-grading"]
if ON_GPU:
    torch.set_float32_matmul_precision("high")
batch = SIZE["batch"]
models = {name: tuned_setup(SIZE["hidden"], dtype=AMP_DTYPE)
          for name in ("naive", "on device", "prefetched", "tuned")}
loops = {
    "loader alone": lambda: sum(1 for _ in row_loader(dataset, batch)),
    "naive": lambda: naive_epoch(*models["naive"][:2], row_loader(dataset, batch)),
    "data on the device": lambda: lean_epoch(
        *models["on device"][:2], device_batches(X_dev, y_dev, batch, shuffle)),
    "prefetched": lambda: lean_epoch(   # recipes 2 and 3, float32
        *models["prefetched"][:2],
        prefetch(batch_loader(dataset, batch, pin=True), device)),
    "tuned": lambda: tuned_epoch(*models["tuned"], batch_loader(dataset, batch,
                                                                 pin=True),
                                 device, AMP_DTYPE),
}
loop_times, loop_ratios = compare(loops, "naive", device,
                                  seconds=20 if ON_GPU else 5, min_rounds=5,
                                  one_thread=False)
rates = {name: len(dataset) / result.median for name, result in loop_times.items()}
for name, result in loop_times.items():
    q1, q3 = result.quartiles
    print(f"{name:>18}: {result.median * 1e3:8.1f} ms an epoch (quartiles "
          f"{q1 * 1e3:.1f}-{q3 * 1e3:.1f}), {rates[name]:11,.0f} samples/s")
for ratio in loop_ratios:
    if ratio.name == "loader alone":
        verdict = "the loader's share of the naive epoch"
    else:
        verdict = ("within noise" if not ratio.clear
                   else f"{1 / ratio.ratio:.2f}x the naive loop's speed")
    print(f"{ratio.name:>18}: time {ratio.ratio:.2f} of naive (95% interval "
          f"{ratio.low:.2f}-{ratio.high:.2f}, {ratio.rounds} rounds): {verdict}")
print(f"measured on {device} just now, {torch.get_num_threads()} torch threads")
per_sample = step32.flops / B if ON_GPU else None
gpu_key = gpumodel.spec_key(torch.cuda.get_device_name()) if ON_GPU else None
if gpu_key is not None:
    tuned_format = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(AMP_DTYPE,
                                                                      "tf32")
    for label, precision in (("naive", "tf32"), ("data on the device", "tf32"),
                             ("prefetched", "tf32"), ("tuned", tuned_format)):
        try:
            mfu = gpumodel.utilisation(rates[label] * per_sample, gpu_key, precision)
        except LookupError as exc:  # no such tensor cores on this chip
            print(f"{label}: {exc}")
            continue
        print(f"{label}: MFU {mfu:.1%} of the {precision} peak of {gpu_key} "
              "(measured rate over the spec sheet's peak)")
torch.set_float32_matmul_precision("highest")  # the default again

# %% [markdown]
# ## 10. What a GPU makes of them, modelled
#
# A CPU cannot show the payoff, so the course's cost model (`course.gpumodel`, Days 03
# and 10) replays the step of section 3 on named GPUs, at a GPU's sizes. The naive
# loop: each batch pays the usual loader's time *measured on this machine* (section
# 3), two blocking copies from pageable memory, the step in float32 and a loss read.
# The tuned loop, with the data on the device: no loader, no copy, no wait; the matrix
# products in bfloat16 where the chip has bfloat16 tensor cores, or float16 with the
# scaler's read each step (the T4). Every figure below is **modelled, not measured**;
# the model's error against recorded runs is printed with them.

# %% tags=["skip-grading"]
steps = len(X_big) // B
copies = gpumodel.Trace()
copies.copy("h2d", B * 64 * 4, library="torch")
copies.copy("h2d", B * 8, library="torch")
naive_step = gpumodel.Trace([*copies.events, *step32.events])
naive_step.sync()
modelled = {}
for key, spec in gpumodel.GPUS.items():
    dtype = sixteen_bit(spec)
    fmt = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype, "fp32")
    tuned_step = gpumodel.autocast_trace(step32, dtype) if dtype else step32
    if fmt == "fp16":
        tuned_step.sync()  # the GradScaler's found_inf, each step
    naive_s = per_batch["DataLoader, row by row"] + gpumodel.estimate(
        naive_step, spec, repeat=steps).seconds / steps
    tuned_s = gpumodel.estimate(tuned_step, spec, repeat=steps).seconds / steps
    modelled[spec.name] = (B / naive_s, B / tuned_s)
    mfu = []
    for rate, precision in ((B / naive_s, "fp32"), (B / tuned_s, fmt)):
        try:
            share = gpumodel.utilisation(rate * step32.flops / B, key, precision)
            mfu.append(f"{share:.1%}")
        except LookupError:  # the spec sheet gives no peak for it
            mfu.append("n/a")
    print(f"{spec.name:>42}: naive {B / naive_s:9,.0f} samples/s (MFU {mfu[0]} of "
          f"fp32), tuned in {fmt} {B / tuned_s:10,.0f} samples/s (MFU {mfu[1]})")
print("modelled, not measured;", gpumodel.accuracy_for("pytorch loop"))
print(gpumodel.accuracy_for("16-bit tensor-core matmul"))

fig, ax = plt.subplots(figsize=(7.2, 4.0), layout="constrained")
names = list(modelled)
where = range(len(names))
ax.bar([i - 0.2 for i in where], [m[0] for m in modelled.values()], 0.4,
       label="naive: the usual loader, copies, a read per step")
ax.bar([i + 0.2 for i in where], [m[1] for m in modelled.values()], 0.4,
       label="tuned: data on the device, 16-bit, no wait")
ax.set_yscale("log")
ax.set_xticks(list(where), [n.replace("NVIDIA ", "").split(" (")[0] for n in names],
              rotation=15)
ax.set_ylabel("samples per second (modelled)")
ax.set_title("The naive and tuned loops at a GPU's sizes, modelled")
ax.legend(fontsize="small")
show("11_modelled_loops")

# %% [markdown]
# **`torch.compile`** traces the model and fuses its elementwise operations
# into fewer, larger kernels (Day 10 counted the launches it saves). Inductor,
# its compiler, needs a C++ compiler and worker processes, which the grader's
# sandbox refuses, so this cell runs only on a GPU and is never graded.

# %% tags=["skip-grading"]
if ON_GPU:
    compiled = torch.compile(wide_mlp(SIZE["hidden"]).to(device))
    opt_c = torch.optim.SGD(compiled.parameters(), lr=0.1)
    scaler_c = torch.amp.GradScaler(device.type, enabled=AMP_DTYPE == torch.float16)
    compiled_loops = {
        "tuned": loops["tuned"],
        "compiled": lambda: tuned_epoch(compiled, opt_c, scaler_c,
                                        batch_loader(dataset, batch, pin=True),
                                        device, AMP_DTYPE),
    }
    compiled_loops["compiled"]()  # compiles once, outside the timing
    times, (ratio,) = compare(compiled_loops, "tuned", device, seconds=10,
                              min_rounds=3, one_thread=False)
    print(f"compiled: {len(dataset) / times['compiled'].median:,.0f} samples/s; "
          f"time {ratio.ratio:.2f} of tuned (95% interval {ratio.low:.2f}-"
          f"{ratio.high:.2f}), measured just now")
else:
    print("torch.compile is shown on a GPU only (see the text above).")

# %% [markdown]
# ## Summary
#
# - A GPU wins when each step gives it enough work: mini-batches of a wide model,
#   not the whole of a tiny one; and when nothing else sets the pace.
# - Measure the loader against the step. A `DataLoader` over a `TensorDataset`
#   fetches row by row (section 3 measured it); on a fast GPU (section 10, modelled)
#   the loader, not the GPU, sets the pace.
# - Recipe 1: data that fits goes to the device once; shuffle with a permutation made
#   there.
# - Recipe 2: otherwise fetch whole batches (`BatchSampler` with `batch_size=None`, or
#   `__getitems__`); add workers when preparing a batch takes longer than a step.
# - Recipe 3: overlap copies with compute on a side stream: `torch.cuda.stream(side)`,
#   `wait_stream` before the next copy, `record_stream`. On one stream,
#   `non_blocking=True` frees the host, not the GPU.
# - Mixed precision by Day 10's rule; no `.item()` inside the epoch.
# - Count FLOPs with `FlopCounterMode`; MFU says how much of the chip a run uses.
#
# **Open exercises.**
#
# 1. Time `row_loader(big_set, B)` with `num_workers=2` on your machine (outside
#    the grader). When do workers help?
# 2. Write a `TensorDataset` subclass with `__getitems__(self, indices)` and time it
#    in section 3's cell.
# 3. Add `torch.cuda.set_sync_debug_mode("warn")` around `naive_epoch` on a GPU:
#    which lines does PyTorch point at?
#
# ## Going further: a recorded run
#
# `make gpu-check ONLY=11` runs this Day as a script on a GPU box and keeps its
# output under `$OUT`; the run is then committed under `docs/gpu-runs/` with its
# hardware and date. No GPU run of this Day is recorded yet, so section 10's figures
# are modelled, and no measured GPU figure is shown here.
