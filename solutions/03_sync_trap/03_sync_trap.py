# %% [markdown]
# # Day 03 - The synchronisation trap
#
# You move a training loop to the GPU and it may get *slower*: so warns one of the
# two public articles (in Chinese) this course grew from, the **homework
# article**, "Day 34 实战作业：GPU 加速与 Python 魔法方法" ("Day 34 homework:
# GPU acceleration and Python's magic methods"). The article is a course exercise
# that trains a 4-10-3 network on the Iris flowers on an RTX 3050 Laptop GPU and
# explains `__call__` (Day 04). It says you "may find" ("可能会发现") the GPU
# slower than the CPU, and that on Iris the GPU is "even slower" ("甚至更慢"); it
# prints only the GPU run's time (18.5502 s), no CPU time.
#
# Two costs are common culprits. Each GPU operation costs a launch (Python and
# driver work: 6.5 µs per queued operation, recorded on an NVIDIA H200,
# 2026-11-30), so a tiny network spends its time launching, not computing. And
# the loop may make the CPU wait for the GPU again and again, for example by
# calling `loss.item()` every epoch. Recorded on an NVIDIA H200 (2026-11-30),
# the article's 20,000-epoch Iris loop took 16.46 s against 5.01 s on that
# machine's CPU, and logging every epoch, every 200 epochs or never changed it
# by under 3% (16.43, 16.46 and 16.92 s): there the host's work per operation
# (Python, PyTorch's dispatch and autograd, the launch) cost everything. In the
# shorter loop of section 4, also recorded there, reading the loss every epoch
# cost 14% more than keeping it on the device. This Day measures both costs.
#
# **Learning objectives.** By the end of this notebook you can
#
# - explain why GPU calls return before the work is done (asynchronous execution)
#   and which Python operations force the CPU to wait (a *synchronisation*);
# - time GPU code honestly: naive, synchronised, and including the copies;
# - time code with the field's tools (`torch.utils.benchmark`, CUDA events) and
#   see where the time goes with `torch.profiler`;
# - count the synchronisations a training loop makes, and cut them down;
# - find the waits you did not write (a boolean mask, `nonzero`, a plain copy to
#   the device) and remove them;
# - copy results home without waiting, and know when they may be read;
# - find the problem size at which a GPU overtakes a CPU.
#
# **Time.** About 35 minutes of reading and 65 minutes of exercises (5 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 03_sync_trap.ipynb`, which grades your own copy) also runs *hidden* tests, which
# compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test
# is a good sign, not a guarantee.
#
# On a machine without a GPU every cell still runs. The GPU-only tools (CUDA
# events, `torch.cuda.set_sync_debug_mode`, NVTX ranges) say so where they
# appear; the course's `SyncCounter` stands in for them on a CPU. GPU timings
# recorded on real hardware are in "Going further", at the end.

# %%
import statistics
import time
from dataclasses import replace

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from course import gpumodel
from course.checks import check_close, check_equal, check_that, check_type
from course.data import iris
from course.devices import pick_device
from course.diagrams import diagram
from course.plots import plot_crossover, plot_timings, show
from course.recorded import (
    describe_recorded,
    load_recorded,
    recorded_rows,
    recorded_sweep,
)
from course.sync import SyncCounter
from course.timing import benchmark, compare, one_torch_thread, synchronize

device = pick_device()
NUM_EPOCHS = 300  # raise to 20_000 on a GPU box for the full experiment
SIZES = [64, 128, 256, 512, 1024]  # matrix sizes for the sweep
print(f"Running on {device}; torch {torch.__version__}")

# %% [markdown]
# ## 1. The GPU works in the background
#
# When Python calls `a @ b` on a CUDA tensor, PyTorch *queues* the work for the GPU
# and returns at once, without waiting for the result. The CPU can then prepare and
# queue the next operations while the GPU computes, so the cost of each launch is
# hidden behind the GPU's work instead of added to it. It is also what makes naive
# timing wrong: the clock stops before the GPU has finished (recorded on an NVIDIA
# H200, 2026-11-30: a 4096 x 4096 product timed 0.027 ms without a synchronise,
# 2.71 ms with one).

# %%
diagram("async_timeline")

# %% [markdown]
# Three timings of the same matrix multiply:
#
# 1. **naive** - read the clock around the call;
# 2. **synchronised** - wait for the device before starting and before stopping;
# 3. **with copies** - synchronised, and including the copy of the inputs to the
#    device and of the result back.

# %%
size = SIZES[-1]
a_host, b_host = torch.randn(size, size), torch.randn(size, size)
a, b = a_host.to(device), b_host.to(device)


def naive_time():
    start = time.perf_counter()
    a @ b
    return time.perf_counter() - start


def synchronised_time():
    synchronize(device)
    start = time.perf_counter()
    a @ b
    synchronize(device)
    return time.perf_counter() - start


def time_with_copies():
    synchronize(device)
    start = time.perf_counter()
    (a_host.to(device) @ b_host.to(device)).cpu()
    return time.perf_counter() - start


three, quartiles = {}, {}
for name, measure in [("naive", naive_time), ("synchronised", synchronised_time),
                      ("with copies", time_with_copies)]:
    measure()  # warm-up
    samples = sorted(measure() for _ in range(15))
    three[name], quartiles[name] = statistics.median(samples), (samples[3], samples[11])
    print(f"{name:>13}: {three[name] * 1e3:8.3f} ms, quartiles "
          f"{quartiles[name][0] * 1e3:.3f}-{quartiles[name][1] * 1e3:.3f} ms "
          f"({size}x{size} matmul, {device})")
for first, second in [("naive", "synchronised"), ("synchronised", "with copies")]:
    (low1, high1), (low2, high2) = quartiles[first], quartiles[second]
    apart = high1 < low2 or high2 < low1
    print(f"{first} against {second}: "
          + ("beyond the noise (their quartiles do not overlap)" if apart
             else "no difference beyond the noise (their quartiles overlap)"))
plot_timings(three, title=f"One {size}x{size} matmul on {device}, three ways")
show("03_three_timings")

# %% [markdown]
# On a CPU the three numbers are close: the CPU does the work before the call
# returns, and there is nothing to copy. Each is the median of 15 runs, and the
# cell says whether two of them differ by more than the noise: where their
# quartile ranges overlap, the difference is within it. On a GPU the naive number
# is absurdly small (it measures only the queueing) and the copies can cost more
# than the multiply ("Going further" shows a recorded GPU run).
#
# ### The field's timers
#
# You will rarely write this timer yourself (though Task 3.3 has you write one
# once). `torch.utils.benchmark.Timer` warms up, synchronises CUDA before and
# after each measurement, repeats (`blocked_autorange` for a set time;
# `adaptive_autorange` until the spread settles), and reports the median and the
# interquartile range; it runs on any machine. For CuPy code,
# `cupyx.profiler.benchmark(fn, n_repeat=...)` does the same and reports the
# CPU and the GPU time apart (it needs CuPy and a GPU). On a GPU, two
# `torch.cuda.Event(enable_timing=True)` recorded around the work measure the
# time *on the GPU* between them, without the host's clock.
#
# One difference matters on a CPU: `Timer` runs the work on one thread unless told
# (`num_threads=1` is its default), while your own timer runs it on every thread
# torch uses (`torch.get_num_threads()`). On a CPU the two can differ by about the
# number of cores, so the cell below passes the same thread count.

# %%
from torch.utils import benchmark as torch_benchmark

timer = torch_benchmark.Timer("a @ b", globals={"a": a, "b": b},
                              num_threads=torch.get_num_threads(),
                              label=f"{size}x{size} matmul", sub_label=str(device))
measured = timer.blocked_autorange(min_run_time=0.5)
print(measured)
print(f"median {measured.median * 1e3:.3f} ms, IQR {measured.iqr * 1e3:.3f} ms")
if device.type == "cuda":  # CUDA events exist only on a GPU
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
        enable_timing=True)
    start.record()
    a @ b
    end.record()
    end.synchronize()  # the host waits for the second event, then reads both
    print(f"CUDA events: {start.elapsed_time(end):.3f} ms on the GPU")

# %% [markdown]
# ## 2. What makes the CPU wait?
#
# Any time Python needs a *value* that lives on the GPU, the CPU must wait until the
# GPU has finished everything queued before it, then copy the value back:
# `.item()`, `float(t)`, `int(t)`, `print(t)`, `.tolist()`, `.cpu()`, and
# `if t > 0:` (control flow on a GPU value). (`.numpy()` on a CUDA tensor raises
# instead: call `.cpu()` first.) On a GPU, PyTorch itself finds them for you:
# `torch.cuda.set_sync_debug_mode("warn")` warns at the synchronising calls it
# knows of (`"error"` raises), a few cells below. Its docstring says it does not
# catch every one, and a call may warn more than once: recorded on an NVIDIA H200
# (2026-12-04), one `.item()` raised 2 warnings. On a CPU there is nothing to wait
# for, so this course brings a stand-in, `SyncCounter`, which counts the same
# calls on any machine. Without a GPU it plays one: every tensor
# counts as on the device unless it was made on the host (by `.cpu()`,
# `.to("cpu")`, `torch.from_numpy`, or `torch.tensor(...)` without a device), so
# `.to("cpu")` is one sync here as on a GPU, and `syncs.on_device(t)` tells a
# tensor left on the device from one brought home:

# %%
t = torch.randn(1000, device=device)
with SyncCounter() as syncs:
    total = t.sum()          # queued: no sync
    doubled = total * 2      # queued: no sync
    value = doubled.item()   # sync 1
    if total > 0:            # sync 2: Python needs a True or False
        pass
    print(f"sum = {total}")  # sync 3: printing reads the value
    history = t[:3].tolist()  # sync 4
    home = t[:3].to("cpu")   # sync 5: the copy home waits for the GPU
    home.tolist()            # no sync: `home` is on the host now
print(syncs.summary())
print("t on the device:", syncs.on_device(t), "| home on the device:",
      syncs.on_device(home))

# %% [markdown]
# Some calls make the host wait though they hand nothing to Python: a boolean
# mask (`t[t > 0]`, whose result size the host must learn), `torch.nonzero`, and a
# plain copy to the device. Section 8 shows them; `SyncCounter` counts them as
# PyTorch's sync debug mode reports them on a GPU. On a CUDA machine,
# `torch.cuda.set_sync_debug_mode("warn")` makes PyTorch warn at the synchronising
# calls it knows of (`"error"` raises instead); use it to find the waits in your
# own loop (GPU only: the cell below does nothing on a CPU).

# %%
if torch.cuda.is_available():
    torch.cuda.set_sync_debug_mode("warn")
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        positive = t[t > 0]  # boolean mask: the CPU must learn the result's size
    torch.cuda.set_sync_debug_mode("default")
    print(f"here: t[t > 0] raised {len(caught)} sync warning(s)")

# %% [markdown]
# ### A copy home that does not wait, and when you may read it
#
# `t.to("cpu", non_blocking=True)` (and `host.copy_(t, non_blocking=True)` into
# pinned memory) queues the copy and returns at once: no synchronisation. The host
# tensor it returns exists, but **its values are not there yet**: until the host
# waits for the GPU (`torch.cuda.synchronize()`, or any synchronising call), reading
# it gives whatever the memory held. (A `copy_` into ordinary, pageable memory waits
# for the copy instead.) The rule: queue the copies, synchronise once, then read.
# `SyncCounter` keeps that rule on a CPU too: `syncs.unfinished(t)` says a copy has
# not been waited for, and `syncs.early_reads` lists each read that came too early
# (`synchronize(device)` from `course.timing` is the wait that works on every
# machine).

# %%
losses = [t[:100].sum(), t[100:].sum()]
with SyncCounter() as syncs:
    home = torch.stack(losses).to("cpu", non_blocking=True)  # queued: no sync
    print("copy finished?", not syncs.unfinished(home))
    too_early = home.tolist()  # read before any wait: on a GPU, garbage
    synchronize(device)  # wait once for everything queued
    print("copy finished?", not syncs.unfinished(home), "->", home.tolist())
print(f"{syncs.count} synchronisations; reads too early: {len(syncs.early_reads)}",
      [event.where for event in syncs.early_reads])

# %% [markdown]
# ## 3. Logging without stalling
#
# A training loop on the GPU runs fastest when the CPU queues epoch after epoch
# without waiting. Reading the loss with `loss.item()` every epoch breaks that
# rhythm: one synchronisation per epoch. Logging every `log_every` epochs divides
# the number of waits by `log_every`.
#
# We use the Iris MLP (4-10-3) from Day 02, in its plain form.

# %%
split = iris()
X = torch.from_numpy(split.X_train).to(device)
y = torch.from_numpy(split.y_train).to(device)


def make_model(seed=0):
    """A fresh 4-10-3 MLP with reproducible weights, on `device`."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(device)


# %% [markdown]
# ### Task 3.1 - `train` with a logging interval

# %% nbgrader={"grade_id": "03-train", "solution": true}
def train(model, X, y, num_epochs, log_every, lr=0.1):
    """Train with full-batch SGD and record the loss every `log_every` epochs.

    Args:
        model: an nn.Module already on the same device as X and y.
        X, y: inputs (n, features) and int64 class labels (n,).
        num_epochs: number of full-batch steps; log_every: logging interval (>= 1).
        lr: learning rate of torch.optim.SGD(model.parameters(), lr=lr).

    Each epoch: loss = nn.functional.cross_entropy(model(X), y);
    optimizer.zero_grad(); loss.backward(); optimizer.step().

    Returns:
        A list of Python floats: the loss of epochs log_every, 2 * log_every, ...
        (1-based), so num_epochs // log_every values. The loop must make at most
        num_epochs // log_every host-device synchronisations.
    """
    # Hint: (epoch + 1) % log_every == 0 tells you when to call loss.item().
    ### BEGIN SOLUTION
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch + 1) % log_every == 0:
            history.append(loss.item())
    return history
    ### END SOLUTION


with SyncCounter() as syncs:
    history = train(make_model(), X, y, num_epochs=100, log_every=10)
print(f"{len(history)} losses logged with {syncs.count} synchronisations")
print("first and last:", [round(v, 4) for v in (history[0], history[-1])])

# %% nbgrader={"grade": true, "grade_id": "03-train-test", "points": 1}
"""train logs num_epochs // log_every floats with at most that many syncs."""
with SyncCounter() as syncs:
    logged = train(make_model(), X, y, num_epochs=60, log_every=20)
check_type(logged, list, "train(...)")
check_equal(len(logged), 3, "number of logged losses for 60 epochs, log_every=20")
check_type(logged[0], float, "each logged loss")
check_that(syncs.count <= 3,
           "train made {count} host-device synchronisations for 3 logged losses:\n"
           "{summary}\nCall loss.item() only on the epochs you log.",
           count=syncs.count, summary=syncs.summary())
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "03-train-hidden-test", "points": 2}
"""train matches the reference values and sync budget for many intervals (hidden)."""
check_type(train(make_model(), X, y, 2, 1), list, "train(...)")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, outcome, submit

_got = {}
for _epochs, _every, _lr in ((50, 1, 0.1), (50, 7, 0.1), (90, 30, 0.3), (40, 50, 0.1)):
    _label = f"train(num_epochs={_epochs}, log_every={_every})"
    with SyncCounter() as _syncs:
        _history = outcome(train, make_model(1), X, y, _epochs, _every, _lr)
    _got[_label] = Approx(_history, rtol=1e-4, atol=1e-6)
    _got[f"host syncs in {_label}"] = Bound(_syncs.count, high=_epochs // _every)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Keep the history on the device
#
# Even logging every epoch can be free: append `loss.detach()` (a tensor that stays
# on the device, no waiting) and move the whole history to the CPU *once*, at the
# end. One synchronisation instead of `num_epochs`.
#
# ### Task 3.2 - `train_history_on_device`

# %% nbgrader={"grade_id": "03-history", "solution": true}
def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    """Train like `train`, recording every epoch's loss with ONE synchronisation.

    Returns:
        A 1-D float32 tensor ON THE CPU with num_epochs values: the loss of every
        epoch. The whole function makes at most one host-device synchronisation
        (the final transfer, with .cpu()), however large num_epochs is. Copying
        each loss home (`.to("cpu")`, `.cpu()` or `.item()` every epoch) is one
        sync per epoch; a history left on the device fails too, and so does a
        non_blocking copy returned before any wait (its values are not there).
    """
    # Hint: torch.stack a list of detached losses, then one .cpu().
    ### BEGIN SOLUTION
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).cpu()
    ### END SOLUTION


with SyncCounter() as syncs:
    all_losses = train_history_on_device(make_model(), X, y, num_epochs=100)
print(f"{len(all_losses)} losses with {syncs.count} synchronisation(s)")

# %% nbgrader={"grade": true, "grade_id": "03-history-test", "points": 1}
"""train_history_on_device returns every loss on the CPU with at most one sync."""
with SyncCounter() as syncs:
    hist = train_history_on_device(make_model(), X, y, num_epochs=25)
check_type(hist, torch.Tensor, "train_history_on_device(...)")
check_equal(tuple(hist.shape), (25,), "shape of the loss history")
check_that(not syncs.on_device(hist),
           "the history is still on the device: bring it home with one .cpu() at "
           "the end")
check_that(not syncs.unfinished(hist),
           "the history is a non_blocking copy nothing has waited for: its values "
           "are not on the host yet. Use a plain .cpu(), or synchronize(device) "
           "before returning it.")
check_that(syncs.count <= 1,
           "expected at most 1 sync, got {count}:\n{summary}\nKeep each loss on the "
           "device (loss.detach()); copy the whole history home once, at the end.",
           count=syncs.count, summary=syncs.summary())
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "03-history-hidden-test", "points": 2}
"""train_history_on_device matches the reference with one sync (hidden)."""
check_type(train_history_on_device(make_model(), X, y, 2), torch.Tensor, "history")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, outcome, submit

_got = {}
for _epochs, _lr in ((1, 0.1), (40, 0.1), (120, 0.5)):
    _label = f"train_history_on_device(num_epochs={_epochs}, lr={_lr})"
    with SyncCounter() as _syncs:
        _history = outcome(train_history_on_device, make_model(2), X, y, _epochs, _lr)
    _got[_label] = Approx(_history, rtol=1e-4, atol=1e-6)
    _got[f"host syncs in {_label}"] = Bound(_syncs.count, high=1)
    _got[f"{_label} returned on the host"] = not (
        isinstance(_history, torch.Tensor) and _syncs.on_device(_history))
    _got[f"{_label} returned before its copy home finished"] = bool(
        isinstance(_history, torch.Tensor) and _syncs.unfinished(_history))
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ### The trap, measured
#
# The same training three ways, on this machine's device: `.item()` every epoch,
# every 100 epochs, and the history kept on the device. A shared laptop has slow
# phases: on this course's 2-core machine (2026-12-03) the same loop measured
# 150-158 µs an epoch alone and 174-392 µs while two other programs kept both
# cores busy, and a plain before-and-after comparison would take such a phase
# for a difference. So `course.timing.compare` runs the three in alternating
# rounds (A B C, then C B A, ...), divides each variant's time by the baseline's
# *in the same round*, and goes on until each ratio is known to ±10% (95%
# confidence) or its time budget is spent. When the interval holds 1, it says
# "no difference beyond noise". Under that load it said so of both ratios here
# (0.92 and 0.93, intervals 0.83-1.01 and 0.87-1.00, 101 rounds in 20 s).

# %% tags=["skip-grading"]
variants = {
    "item() every epoch": lambda m: train(m, X, y, NUM_EPOCHS, 1),
    "item() every 100": lambda m: train(m, X, y, NUM_EPOCHS, 100),
    "history on device": lambda m: train_history_on_device(m, X, y, NUM_EPOCHS),
}
sync_counts = {}
for name, run in variants.items():
    with SyncCounter() as syncs:
        run(make_model())
    sync_counts[name] = syncs.count
timings, ratios = compare(
    {name: lambda run=run: run(make_model()) for name, run in variants.items()},
    "history on device", device, seconds=20, min_rounds=5)
per_epoch = {name: replace(result, times=tuple(t / NUM_EPOCHS for t in result.times))
             for name, result in timings.items()}
for name, result in per_epoch.items():
    q1, q3 = result.quartiles
    print(f"{name:>20}: {result.median * 1e6:8.1f} µs/epoch (quartiles "
          f"{q1 * 1e6:.1f}-{q3 * 1e6:.1f}), {sync_counts[name]:5d} syncs over "
          f"{NUM_EPOCHS} epochs ({device})")
for ratio in ratios:
    print(f"against history on device, {ratio}")
recorded_ratio, recorded_label = {}, None
for run in load_recorded("bench"):
    print(f"\n{run.label} (Iris MLP, the same three ways):")
    gpu_rows = {row["variant"]: row for row in recorded_rows(run, "sync_trap")
                if row["device"] != "cpu"}
    for row in gpu_rows.values():
        print(f"  {row['variant']:>20}: {row['s_per_epoch'] * 1e6:8.1f} µs/epoch, "
              f"{row['syncs']:5d} syncs over {row['epochs']} epochs")
    if "history_on_device" in gpu_rows:
        base = gpu_rows["history_on_device"]["s_per_epoch"]
        recorded_label = run.label
        for key, name in (("item_every_epoch", "item() every epoch"),
                          ("item_every_100", "item() every 100")):
            if key in gpu_rows:
                recorded_ratio[name] = gpu_rows[key]["s_per_epoch"] / base

# Each way against history on device: this machine's ratio with its 95% interval
# (a bar that reaches 1 is no difference), and the recorded GPU's beside it.
fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
names = [r.name for r in ratios]
for i, r in enumerate(ratios):
    ax.errorbar(i - 0.1, r.ratio, yerr=[[r.ratio - r.low], [r.high - r.ratio]],
                fmt="o", color="C0", capsize=5,
                label=f"this machine ({device}), 95% interval" if i == 0 else None)
for i, name in enumerate(names):
    if name in recorded_ratio:
        ax.plot(i + 0.1, recorded_ratio[name], "s", color="C1",
                label=recorded_label if i == 0 else None)
ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
ax.set_xticks(range(len(names)), names)
ax.set_xlim(-0.6, len(names) - 0.4)
ax.set_ylabel("time per epoch / history on device")
ax.set_title("Reading the loss: each way against keeping it on the device")
ax.legend(fontsize="small")
show("03_sync_variants")

# %% [markdown]
# ## 5. An honest timer
#
# `torch.utils.benchmark.Timer` (section 1) does all of this for you, and so does
# this course's `course.timing.benchmark`. Writing it once yourself is the best
# way to remember the rules: warm up first, synchronise before *every* clock
# read, repeat, and report the median and the spread (not the mean, which one
# outlier can ruin).
#
# ### Task 3.3 - `timed`

# %% nbgrader={"grade_id": "03-timed", "solution": true}
def timed(fn, device, repeat=5, warmup=1):
    """Time fn() honestly on `device`.

    Call fn() `warmup` times untimed. Then `repeat` times: synchronize(device);
    start = time.perf_counter(); fn(); synchronize(device);
    append time.perf_counter() - start. Read the clock with
    time.perf_counter() (`from time import perf_counter` is fine too) and wait
    with synchronize(device) (imported above).

    Returns:
        dict with "times" (list of the `repeat` durations in seconds), "median"
        (float(np.median(times))) and "spread" (the interquartile range,
        float(np.percentile(times, 75) - np.percentile(times, 25))).
    """
    # Hint: the clock must never be read while the device still has work queued.
    ### BEGIN SOLUTION
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append(time.perf_counter() - start)
    return {
        "times": times,
        "median": float(np.median(times)),
        "spread": float(np.percentile(times, 75) - np.percentile(times, 25)),
    }
    ### END SOLUTION


matmul_timing = timed(lambda: a @ b, device)
print(f"{size}x{size} matmul on {device}: median {matmul_timing['median'] * 1e3:.3f} "
      f"ms, IQR {matmul_timing['spread'] * 1e3:.3f} ms")


class RecordingDevice:
    """Stands in for a GPU in tests: records every synchronize() call."""

    def __init__(self, log):
        self.log = log

    def synchronize(self):
        self.log.append("sync")


# %% nbgrader={"grade": true, "grade_id": "03-timed-test", "points": 1}
"""timed returns median and spread, and synchronises after the timed call."""
recorder = RecordingDevice([])
log = recorder.log
result = timed(lambda: log.append("call"), recorder, repeat=3, warmup=1)
check_type(result, dict, "timed(...)")
check_equal(len(result["times"]), 3, 'len(result["times"])')
check_type(result["median"], float, 'result["median"]')
check_equal(log.count("call"), 4, "calls of fn (1 warm-up + 3 timed)")
check_that(log[-1] == "sync",
           "synchronise after the last timed call, before the clock")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "03-timed-hidden-test", "points": 2}
"""timed never reads the clock with work pending, and computes exact stats (hidden)."""
check_type(timed(lambda: None, "cpu", repeat=2), dict, "timed(...)")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_real_clock = time.perf_counter
_got = {}
try:
    for _durations, _warmup in (([3.0, 1.0, 2.0], 1), ([0.5, 0.25, 4.0, 1.0, 2.0], 2),
                                ([7.0], 0)):
        _device = RecordingDevice([])
        _log = _device.log
        _now = [100.0]
        _calls = [0]
        _queue = list(_durations)

        def _clock():
            _log.append("clock")
            return _now[0]

        def _work():
            _log.append("call")
            _calls[0] += 1
            _now[0] += _queue.pop(0) if _calls[0] > _warmup else 50.0

        # the fake clock stands in for time.perf_counter under every name the
        # answer's cell bound it to (`from time import perf_counter` included)
        _names = [_k for _k, _v in list(timed.__globals__.items())
                  if _v is _real_clock and _k != "_real_clock"]
        time.perf_counter = _clock
        for _k in _names:
            timed.__globals__[_k] = _clock
        try:
            _res = outcome(timed, _work, _device, repeat=len(_durations),
                           warmup=_warmup)
        finally:
            time.perf_counter = _real_clock
            for _k in _names:
                timed.__globals__[_k] = _real_clock
        _label = f"timed(durations={_durations}, warmup={_warmup})"
        if isinstance(_res, dict):
            _res = {_k: _res.get(_k) for _k in ("times", "median", "spread")}
        _got[_label] = _res
        _events = list(_log)
        _got[f"{_label}: calls of fn"] = _events.count("call")
        _pending, _early = False, False
        for _event in _events:
            if _event == "call":
                _pending = True
            elif _event == "sync":
                _pending = False
            elif _event == "clock" and _pending:
                _early = True
        _got[f"{_label}: the answer read the clock while work was still "
             "pending (it should not: call synchronize(device) before each "
             "read)"] = _early
finally:
    time.perf_counter = _real_clock
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. See where the time goes: `torch.profiler`
#
# Counting syncs answers one question. To see every operation a step runs and
# what each costs, profile it. `torch.profiler` records each PyTorch operation on
# the CPU (on a GPU, with `ProfilerActivity.CUDA`, each kernel too), and
# `record_function` names a stretch of your own code so that it shows as one
# range. It runs on any machine:

# %%
from torch.profiler import ProfilerActivity, profile, record_function

activities = [ProfilerActivity.CPU]
if device.type == "cuda":
    activities.append(ProfilerActivity.CUDA)
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with profile(activities=activities) as prof:
    for _ in range(20):
        with record_function("forward"):
            loss = nn.functional.cross_entropy(model(X), y)
        with record_function("backward"):
            optimizer.zero_grad()
            loss.backward()
        with record_function("step"):
            optimizer.step()
        with record_function("log"):
            loss.item()
print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=12))
prof.export_chrome_trace("03_trace.json")
print("trace written to 03_trace.json")

# %% [markdown]
# The table lists your four ranges and the operations inside them (`aten::addmm`
# is a linear layer's product; `aten::item` the read of the loss). The trace file
# draws the same run as a timeline: open it in Perfetto (https://ui.perfetto.dev,
# "Open trace file"; it runs in your browser) or in Chrome at `chrome://tracing`.
# On a GPU the trace has a row of CUDA kernels under the CPU's rows, and you can
# see the GPU idle between tiny kernels while the CPU launches the next one.
#
# Three more GPU-only tools, for when you have one:
#
# - **NVTX ranges and Nsight Systems.** `with torch.cuda.nvtx.range("step"):`
#   marks a stretch that NVIDIA's Nsight Systems shows on its timeline. Nsight
#   runs a script, not a notebook:
#   `jupyter nbconvert --to script 03_sync_trap.ipynb` writes `03_sync_trap.py`;
#   then run `nsys profile -t cuda,nvtx -o day03 python 03_sync_trap.py` and open
#   `day03.nsys-rep` in Nsight Systems. On PyTorch's CPU-only build
#   `torch.cuda.nvtx` raises, so the cell below runs only on a GPU.
# - **`torch.cuda.set_sync_debug_mode("warn")`**, met in section 2: a warning at
#   the synchronising calls PyTorch knows of.
# - **`CUDA_LAUNCH_BLOCKING=1`** (set before Python starts) makes every launch
#   wait for its kernel. A CUDA error is otherwise reported by a later call;
#   with it, by the line that caused it. It serialises everything, so never time
#   with it.

# %%
if device.type == "cuda":
    for epoch in range(3):
        with torch.cuda.nvtx.range(f"epoch {epoch}"):
            loss = nn.functional.cross_entropy(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print("NVTX ranges sent: run this file under nsys to see them")
else:
    print("no GPU: NVTX ranges need CUDA (nsys shows them on a GPU machine)")

# %% [markdown]
# ### Task 3.4 - `op_counts`
#
# Counting calls is the profiler's simplest use and a useful one: `aten::item` is
# one `.item()`, so in a loop whose only read is `.item()` (like the one below) its
# count is the number of times the loop made the host wait on a GPU. Other reads
# show as other operators (`.cpu()` as `aten::_to_copy`, for example).
# `logged_run` (given) builds a workload to profile: an Iris training run that
# reads the loss every `log_every` epochs.

# %%
def logged_run(num_epochs, log_every, seed=0):
    """A function that trains a fresh MLP for num_epochs epochs, reading the loss
    with .item() every log_every epochs (a workload to profile)."""
    def run():
        model = make_model(seed)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(num_epochs):
            loss = nn.functional.cross_entropy(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if (epoch + 1) % log_every == 0:
                loss.item()
    return run


class CountedCalls:
    """Wraps a function and counts its calls (Day 04's __call__)."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self):
        self.calls += 1
        return self.fn()


# %% nbgrader={"grade_id": "03-ops", "solution": true}
def op_counts(fn):
    """Call fn() once under torch.profiler.profile (CPU activity) and count the
    PyTorch operators it ran.

    Returns:
        A dict {name: calls} with one entry for every operator whose name starts
        with "aten::", its number of calls as an int (the `count` of its row in
        prof.key_averages()). Nothing else: no ranges, no other events.
    """
    # Hint: {event.key: event.count for event in prof.key_averages() if ...}
    ### BEGIN SOLUTION
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return {
        event.key: event.count
        for event in prof.key_averages()
        if event.key.startswith("aten::")
    }
    ### END SOLUTION


for every in (1, 10, 50):
    counts = op_counts(logged_run(50, every))
    print(f"log_every={every:2d}: aten::item called {counts.get('aten::item', 0)} "
          f"times, aten::addmm {counts.get('aten::addmm', 0)} times")

# %% nbgrader={"grade": true, "grade_id": "03-ops-test", "points": 1}
"""op_counts calls fn once and counts the aten operators it ran."""
counted = CountedCalls(logged_run(6, 2))
counts = op_counts(counted)
check_type(counts, dict, "op_counts(...)")
check_equal(counted.calls, 1, "calls of fn (profile one run)")
strays = [name for name in counts if not str(name).startswith("aten::")]
check_that(not strays, "keep only the aten:: operators; also found {strays}",
           strays=strays[:3])
check_equal(counts.get("aten::item"), 3, "aten::item calls for 6 epochs, log_every=2")
check_equal(counts.get("aten::addmm"), 12,
            "aten::addmm calls (two linear layers, 6 epochs)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "03-ops-hidden-test", "points": 2}
"""op_counts matches the reference on several workloads (hidden)."""
check_type(op_counts(logged_run(1, 1)), dict, "op_counts(...)")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_got = {}
for _epochs, _every, _seed in ((5, 1, 0), (8, 3, 1), (4, 5, 2), (0, 1, 3)):
    _counted = CountedCalls(logged_run(_epochs, _every, _seed))
    _label = f"op_counts(logged_run({_epochs}, {_every}))"
    _got[_label] = outcome(op_counts, _counted)
    _got[f"{_label}: calls of fn"] = _counted.calls
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Where does the GPU overtake the CPU?
#
# A GPU pays a fixed price for every operation (launching a kernel: 6.5 µs per
# queued operation, 13.2 µs with a synchronise after each, recorded on an NVIDIA
# H200, 2026-11-30) and then computes very fast. For tiny problems the fixed price
# dominates and the CPU wins; for large ones the GPU wins. The *crossover* is the
# size from which the GPU stays ahead.

# %%
def crossover_size(sizes, cpu_times, gpu_times):
    """The smallest size from which the GPU is faster at every larger size
    (None if it is not faster at the largest)."""
    answer = None
    for size, cpu, gpu in sorted(zip(sizes, cpu_times, gpu_times), reverse=True):
        if gpu >= cpu:
            break
        answer = size
    return answer


# %% [markdown]
# ### The sweep
#
# Matrix multiplies of growing size, timed honestly with `benchmark` on the CPU
# and, when there is one, on the GPU.

# %%
cpu_times, gpu_times = [], []
for n in SIZES:
    m_cpu = torch.randn(n, n)
    with one_torch_thread():  # small products on several threads time the pool
        cpu_times.append(benchmark(lambda m=m_cpu: m @ m, "cpu", repeat=5).median)
    if device.type != "cpu":
        m_dev = m_cpu.to(device)
        gpu_times.append(benchmark(lambda m=m_dev: m @ m, device, repeat=5).median)
for i, n in enumerate(SIZES):
    row = f"n={n:5d}: CPU {cpu_times[i] * 1e3:8.3f} ms"
    if gpu_times:
        row += f" | {device} {gpu_times[i] * 1e3:8.3f} ms"
    print(row)
if gpu_times:
    print("GPU ahead from n =", crossover_size(SIZES, cpu_times, gpu_times))
ax = plot_crossover(SIZES, cpu_times, gpu_times or None, size_label="matrix size n",
                    cpu_label="this machine's CPU (one thread)",
                    gpu_label=f"this machine's {device}")
for run in load_recorded("bench"):  # beside it: the same sweep on a recorded GPU
    sizes, cpu_s, gpu_s = recorded_sweep(run, "matmul", "torch")
    if sizes:
        print(f"{run.label}: GPU ahead from n =", crossover_size(sizes, cpu_s, gpu_s))
        gpu_name = run.label.removeprefix("recorded on ").split(",")[0]
        plot_crossover(sizes, cpu_s, gpu_s, ax=ax, size_label="matrix size n",
                       cpu_label=f"the {gpu_name}'s host CPU (recorded)",
                       gpu_label=f"{run.label}")
ax.set_title("One n x n matmul: this machine, and a recorded GPU run")
show("03_crossover")

# %% [markdown]
# ## 8. The waits you did not write
#
# Section 2's reads hand a value to Python. Some calls make the host wait though
# they return a tensor:
#
# - **A size only the data knows.** `t[t > 0]` (a boolean mask, read, or written
#   with a tensor of values: `t[t > 0] = u[t > 0]`), `torch.nonzero`,
#   `torch.argwhere`, `torch.where(condition)` with one argument,
#   `torch.masked_select`, `torch.unique`, `torch.bincount` and
#   `torch.repeat_interleave` without `output_size`: the result's size depends on
#   the values, so the host must learn it before it can allocate the result. (A
#   mask written with one number, `t[t > 0] = 0`, becomes `masked_fill_` and does
#   not wait.)
# - **A plain copy to the device.** `x.to(device)`, `d.copy_(x)` and
#   `torch.tensor(data, device=device)` from host memory, without
#   `non_blocking=True`: PyTorch issues the copy and then waits for it
#   (`memcpy_and_sync` in `aten/src/ATen/native/cuda/Copy.cu`: `cudaMemcpyAsync`,
#   then `cudaStreamSynchronize`), from pinned memory too. With
#   `non_blocking=True` PyTorch does not wait for the copy: from pinned memory it
#   is queued and the host goes on (from pageable memory CUDA may still stage it
#   before returning).
#
# `SyncCounter` counts each of them, as `torch.cuda.set_sync_debug_mode` reports
# them on a GPU; the Reference guide lists every rule with its source and says
# which ones a recorded GPU run has confirmed. The same work can keep every shape
# fixed: `torch.where(keep, t, 0.0)` and `t.masked_fill(~keep, 0.0)` keep `t`'s
# shape, `(keep & wrong).sum()` counts on the device, and a copy made with
# `non_blocking=True` is queued.

# %%
t = torch.randn(1000, device=device)
keep = t > 0  # a boolean tensor on the device: making it waits for nothing
with SyncCounter() as syncs:
    positives = t[keep]                    # waits: how many are kept?
    where = torch.nonzero(keep)            # waits: the same question
    batch = torch.ones(64, 4).to(device)   # waits for its own copy
    kept = torch.where(keep, t, 0.0)       # no wait: t's shape
    count = keep.sum()                     # no wait: the count stays on the device
    queued = torch.ones(64, 4).to(device, non_blocking=True)  # no wait: queued
print(syncs.summary())

# %% [markdown]
# ### Task 3.5 - `train_masked`
#
# `train_masked_naive` trains on the rows a boolean `keep` marks, with a weight for
# each class, and counts the kept rows it gets wrong each epoch. It never reads a
# value, yet it makes the host wait at least three times an epoch (on a GPU the
# mask's backward waits once more), and once more at the end. Rewrite it without
# a single synchronisation.

# %%
KEEP = torch.arange(len(y), device=device) % 4 != 0  # every fourth row left out


def train_masked_naive(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    """Train on the kept rows; three hidden waits an epoch."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, wrong = [], []
    for _ in range(num_epochs):
        weight = class_weights.to(device)  # a plain copy: waits for it
        logits = model(X)
        per_row = nn.functional.cross_entropy(logits, y, weight=weight,
                                              reduction="none")
        loss = per_row[keep].mean()  # a boolean mask: waits for the size
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        mistakes = torch.nonzero((logits.argmax(dim=1) != y) & keep)  # waits
        wrong.append(len(mistakes))
    return torch.stack(losses), torch.tensor(wrong, device=device)  # waits


naive_model = make_model()
with SyncCounter() as syncs:
    weights = torch.tensor([1.0, 2.0, 0.5])  # made on the host
    train_masked_naive(naive_model, X, y, KEEP, weights, num_epochs=10)
print(syncs.summary())


# %% nbgrader={"grade_id": "03-masked", "solution": true}
def train_masked(model, X, y, keep, class_weights, num_epochs, lr=0.1):
    """Train like `train_masked_naive`, with no host-device synchronisation.

    Args:
        model, X, y: as in `train` (model already on X's device).
        keep: a bool tensor (n,) on the device: the rows that count.
        class_weights: a float32 tensor (3,) ON THE HOST, one weight per class.
        num_epochs: full-batch steps (>= 1); lr: SGD's learning rate.

    Each epoch: logits = model(X); the loss is the mean, over the rows where
    keep is True, of nn.functional.cross_entropy(logits, y, weight=<the class
    weights on the device>, reduction="none"); zero_grad, backward, step.

    Returns:
        (losses, wrong): two 1-D tensors ON THE DEVICE with num_epochs values:
        each epoch's loss (float32), and the number of kept rows whose
        logits.argmax(dim=1) differs from y (int64), both from that epoch's
        logits. The function makes no synchronisation at all: no boolean mask,
        no nonzero, and its one copy to the device with non_blocking=True.
    """
    # Hint: (per_row * keep).sum() / keep.sum() is the mean over the kept rows.
    ### BEGIN SOLUTION
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    weight = class_weights.to(X.device, non_blocking=True)
    kept = keep.sum()
    losses, wrong = [], []
    for _ in range(num_epochs):
        logits = model(X)
        per_row = nn.functional.cross_entropy(logits, y, weight=weight,
                                              reduction="none")
        loss = (per_row * keep).sum() / kept
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        wrong.append(((logits.argmax(dim=1) != y) & keep).sum())
    return torch.stack(losses), torch.stack(wrong)
    ### END SOLUTION


# %%
masked_model = make_model()
with SyncCounter() as syncs:
    weights = torch.tensor([1.0, 2.0, 0.5])  # made on the host
    masked_losses, masked_wrong = train_masked(masked_model, X, y, KEEP, weights, 10)
print(syncs.summary())
print("last loss and mistakes:", round(masked_losses[-1].item(), 4),
      masked_wrong[-1].item())

# %% nbgrader={"grade": true, "grade_id": "03-masked-test", "points": 1}
"""train_masked keeps every value on the device, with no sync at all."""
model = make_model(3)
with SyncCounter() as syncs:
    weights = torch.tensor([1.0, 2.0, 0.5])  # made on the host, as a loader would
    got = train_masked(model, X, y, KEEP, weights, num_epochs=5)
check_type(got, (tuple, list), "train_masked(...)")
check_equal(len(got), 2, "train_masked(...) returns (losses, wrong)")
losses, wrong = got
check_type(losses, torch.Tensor, "losses")
check_type(wrong, torch.Tensor, "wrong")
check_equal(tuple(losses.shape), (5,), "shape of the losses for 5 epochs")
check_equal(tuple(wrong.shape), (5,), "shape of the mistakes for 5 epochs")
check_that(syncs.on_device(losses) and syncs.on_device(wrong),
           "return both histories on the device: the caller decides when to wait")
uploads = [op for kind, op, where in syncs.timeline if kind == "upload"]
check_that(bool(uploads),
           "class_weights was never copied to the device: on a GPU, cross_entropy "
           "refuses weights on the host. Copy them once with "
           ".to(device, non_blocking=True).")
check_that(syncs.count == 0,
           "train_masked made {count} host-device synchronisation(s):\n{summary}\n"
           "A boolean mask or nonzero waits for the data's size: multiply by keep "
           "(or torch.where) and sum instead. A plain .to(device) waits for its "
           "copy: pass non_blocking=True.", count=syncs.count, summary=syncs.summary())
expected_losses, expected_wrong = train_masked_naive(
    make_model(3), X, y, KEEP, torch.tensor([1.0, 2.0, 0.5]), 5)
check_close(losses.cpu(), expected_losses.cpu(), rtol=1e-5, atol=1e-6,
            name="the losses")
check_equal(wrong.cpu().tolist(), expected_wrong.cpu().tolist(),
            "the mistakes per epoch")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "03-masked-hidden-test", "points": 2}
"""train_masked matches the reference on more masks and weights, no sync (hidden)."""
check_type(train_masked(make_model(), X, y, KEEP, torch.ones(3), 1), (tuple, list),
           "train_masked(...)")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, outcome, submit

_got = {}
_n = len(y)
for _epochs, _every, _weights, _lr in ((1, 4, [1.0, 2.0, 0.5], 0.1),
                                       (12, 2, [1.0, 1.0, 1.0], 0.3),
                                       (30, 3, [0.5, 1.0, 3.0], 0.1)):
    _keep = torch.arange(_n, device=device) % _every != 0
    _model = make_model(4)
    _label = f"train_masked(num_epochs={_epochs}, keep=1 row in {_every} out)"
    with SyncCounter() as _syncs:
        _w = torch.tensor(_weights)  # made on the host
        _out = outcome(train_masked, _model, X, y, _keep, _w, _epochs, _lr)
    _pair = tuple(_out) if isinstance(_out, (tuple, list)) and len(_out) == 2 else None
    _got[f"{_label}: losses"] = Approx(_pair[0] if _pair else _out, rtol=1e-4,
                                       atol=1e-6)
    _got[f"{_label}: mistakes"] = _pair[1] if _pair else None
    _got[f"host syncs in {_label}"] = Bound(_syncs.count, high=0)
    _got[f"{_label}: the class weights copied to the device"] = any(
        _kind == "upload" for _kind, _, _ in _syncs.timeline)
    _got[f"{_label} returned on the device"] = bool(_pair) and all(
        isinstance(_v, torch.Tensor) and _syncs.on_device(_v) for _v in _pair)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# - GPU calls are queued; the CPU only waits when Python needs a value back
#   (`.item()`, `print`, `.cpu()`, `if t > 0`...): a synchronisation.
# - Time GPU code with a synchronisation before every clock read, after a warm-up,
#   and report the median; include the copies when they are part of the job.
#   `torch.utils.benchmark.Timer` (and `cupyx.profiler.benchmark` for CuPy) does
#   it for you; CUDA events time the GPU itself.
# - `torch.profiler` with `record_function` ranges shows where a step's time
#   goes, on any machine; on a GPU, `set_sync_debug_mode` finds the waits and
#   NVTX ranges mark your code in Nsight Systems.
# - Log every N epochs, or keep the history on the device and transfer once.
# - Some calls wait without reading a value: a boolean mask, `nonzero`,
#   `unique`, a plain `.to(device)`. Keep shapes fixed (`torch.where`,
#   multiply by the mask) and copy with `non_blocking=True`.
# - A `non_blocking` copy home is queued: read it only after a synchronisation.
# - Small problems stay on the CPU; the crossover size says where the GPU pays.
#
# **Open exercises.**
#
# 1. Add `print(loss)` inside `train_history_on_device`'s loop. How many syncs does
#    `SyncCounter` count now?
# 2. Change `log_every` to 1, 10, 100 and 1000 with `NUM_EPOCHS = 20_000` on a GPU.
#    Plot time per epoch against `log_every`.
# 3. Repeat the sweep with `torch.float16` on a GPU. Does the crossover move?
# 4. Profile `train` with `log_every=1` and with `log_every=100` and compare the
#    two tables. Which row grows?

# %% [markdown]
# ## Going further: recorded GPU runs and a model
#
# Everything above ran on your machine. This section shows what the same code did
# on a real GPU (recorded runs, each labelled with its hardware and date) and what
# a cost model predicts for GPUs you may not have.
#
# **The three timings, recorded on a GPU.** On a GPU the naive number measures
# only the queueing:

# %% tags=["skip-grading"]
print(describe_recorded("bench"))
for run in load_recorded("bench"):
    timer = run.results.get("timer", {})
    if timer.get("status") == "ok":
        print(f"\n{run.label}, one {timer['size']}x{timer['size']} matmul:")
        for name in ("naive", "synchronised", "with_copies"):
            print(f"  {name:>13}: {timer[name + '_s'] * 1e3:8.3f} ms")

# %% [markdown]
# **`SyncCounter` against PyTorch's own sync debug mode**, pattern by pattern, in
# the latest recorded GPU run (`make gpu-check`). Each row gives PyTorch's
# warnings on the GPU, what `SyncCounter` counted then, and what it counts now
# (the same pattern, replayed here on the simulated GPU). Today's rule is
# PyTorch's: a pattern syncs when PyTorch warns, so "now" is 0 exactly where the
# warnings are 0. Two kinds of row changed since that run: a boolean mask,
# `nonzero` and a plain copy to the device (`pageable_h2d`) counted 0 then and
# count now; and `to_cpu_nonblocking` counted 1 then, before the rule for queued
# copies home, and counts 0 now. `print(t)` reads many elements: PyTorch warns
# once per read, `SyncCounter` counts the one call.

# %% tags=["skip-grading"]
from course.syncrules import patterns

print(describe_recorded("sync-check"))
replay = patterns(torch, torch.device("cpu"))
for run in load_recorded("sync-check")[:1]:  # the latest run
    print(f"{'pattern':>20} | torch warnings | SyncCounter then | now ({run.label})")
    for row in run.results["sync_check"]["rows"]:
        with SyncCounter(simulate=True) as now:
            replay[row["pattern"]]()
        print(f"{row['pattern']:>20} | {row['torch_sync_warnings']:14d} | "
              f"{row['sync_counter']:16d} | {now.count:3d}")

# %% [markdown]
# ### What a GPU would do with this loop: a model
#
# Without a GPU you can still see what it would do. `course.gpumodel` traces a
# run on this machine (every operation that would launch a GPU kernel, its FLOPs
# and bytes, every synchronisation and copy) and replays the trace on the specs
# of named GPUs. Its constants were fitted on a recorded NVIDIA H200 run:
#
# - **the host** spends what the same step would cost the recorded box's CPU,
#   measured here as a multiple of one tiny in-place add, timed in turn with the
#   step on one thread (a busy machine slows both, so the ratio holds; measured on
#   the course's 2-core machine, 2026-12-05, the modelled RTX 3050 figure below
#   moved between 20.7 and 22.6 s, quiet and loaded, against 21.8 to 24.4 s with the
#   step's own fastest time), and priced at that box's recorded cost per add; plus
#   CUDA's own cost for each operation, one figure for an operation outside autograd
#   and a larger one for an operation autograd records or replays (both printed
#   below);
# - **the GPU** runs each operation for `max(FLOPs / peak, bytes / bandwidth)`,
#   at the efficiency the libraries reached on the H200;
# - a synchronisation or a copy waits until the GPU has drained its queue.
#
# The host is the recorded box's: your machine's speed and load change the step's
# measured ratio only a little. Below: the homework article's loop (the 4-10-3
# network, SGD with lr 0.01, 20,000 epochs), one 200-epoch stretch traced each way
# and multiplied by 100. **Every GPU figure here is modelled, not measured**; the
# first line printed is the model's error on the recorded runs of this kind of loop.

# %% tags=["skip-grading"]
SEED_EPOCHS, STRETCH = 20_000, 200
seed_ways = {
    "item() every epoch": lambda: train(make_model(), X, y, STRETCH, 1, lr=0.01),
    "item() every 200": lambda: train(make_model(), X, y, STRETCH, 200, lr=0.01),
    "history on device": lambda: train_history_on_device(make_model(), X, y,
                                                         STRETCH, lr=0.01),
}
print(gpumodel.accuracy_for("pytorch loop"))
cuda_costs = gpumodel.constant_values()
print(f"CUDA's cost per operation (fitted): {cuda_costs['book_us']:.1f} µs outside "
      f"autograd, {cuda_costs['grad_us']:.1f} µs for one autograd records or "
      f"replays; {cuda_costs['sync_us']:.1f} µs per synchronisation")
modelled = {}
for name, run in seed_ways.items():
    stretch = gpumodel.trace(run)
    cpu_s = gpumodel.steady_host_cost(run)  # the host's work, priced as on the box
    modelled[name] = {
        key: gpumodel.estimate(stretch, spec, SEED_EPOCHS // STRETCH, cpu_s=cpu_s)
        for key, spec in gpumodel.GPUS.items()
    }
    where = f"{cpu_s * 1e3:.1f} ms at the recorded box's speed"
    print(f"{name}: {stretch.launches // STRETCH} launches per epoch, "
          f"{stretch.syncs} syncs per {STRETCH} epochs; host cost {where}")
    for est in modelled[name].values():
        print(f"  {est.gpu:>48}: {est.seconds:6.2f} s modelled "
              f"(GPU busy {est.device_busy_seconds * 1e3:.1f} ms of it)")

# %% [markdown]
# ### The blind test
#
# The homework article published **18.5502 s** for this loop on an NVIDIA
# GeForce RTX 3050 Laptop GPU (the item()-every-200 loop, timed with no explicit
# synchronise; its last `.item()` waits for the GPU, so the time holds). No
# constant of the model was fitted on that figure, so it tests the model from
# outside:

# %% tags=["skip-grading"]
laptop = modelled["item() every 200"]["rtx3050-laptop"].seconds
print(f"the homework article, published: 18.55 s on the RTX 3050 Laptop GPU; "
      f"modelled: {laptop:.2f} s ({laptop / 18.5502 - 1:+.0%})")
for run in load_recorded("gpu-extras"):
    for row in run.results.get("seed_iris", {}).get("rows", []):
        if row["device"] != "cpu" and row["variant"] == "item_every_200":
            model = modelled["item() every 200"]["h200"].seconds
            print(f"measured, {run.label}: {row['seconds']:.2f} s; modelled: "
                  f"{model:.2f} s ({model / row['seconds'] - 1:+.0%})")
fitted = gpumodel.error_of("seed_iris", "item_every_200")
if fitted is not None:
    print(f"the model on that run, from that box's CPU cost (timed on another CPU "
          f"and scaled to it): {fitted:+.0%}")

# %% [markdown]
# What the model gets right, and what it misses:
#
# - The GPU hardly matters here: the modelled times are nearly equal from a
#   laptop GPU to an H200, and the GPU is busy for milliseconds out of seconds.
#   The loop is *host-bound*: its time is the host's work for each tiny
#   operation, and the article's laptop GPU took about as long as the recorded
#   H200.
# - Where the model and the recorded runs part: it charges each `.item()` the
#   latency of a copy to the host (fitted on the copy benchmark), so it prints
#   the every-epoch loop a good deal slower than the others. The recorded runs
#   disagree with each other there: the homework article's loop on the H200
#   took the same time every way (under 3% apart), Day 03's shorter loop took
#   14% longer with `.item()` every epoch than with the history on the device.
#   Read the model's gap between the ways as an upper bound.
# - The host is what differs: the model's seconds scale with the host's cost
#   for the step, here the recorded box's. The article's laptop CPU is not
#   known; the prediction above assumes it is as fast as the recorded box's,
#   and the line above gives the error that leaves. `course model-check` prints
#   the model's error on every recorded row.
