# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Day 01 - Devices: what hardware does my code run on?
#
# Before anything can run on a GPU, your code has to find out whether there is one,
# which one it is, and how much memory it has, and it has to keep working when there
# is none. This lesson builds exactly that, and every later Day relies on it.
#
# **Learning objectives.** By the end of this notebook you can
#
# - explain why a GPU (thousands of simple cores) beats a CPU (a few strong cores)
#   on large array work, and why it can lose on small work;
# - ask PyTorch which devices exist: `torch.cuda.is_available()`, `torch.device`,
#   device names, properties and memory;
# - write device selection with a CPU fallback, so one notebook runs anywhere;
# - tell how much GPU memory your process can still use (PyTorch's cache
#   included) and how much training a model needs, sizing models you could never
#   allocate on the `meta` device;
# - read the environment report of `course doctor`.
#
# **Time.** About 30 minutes of reading and 40 minutes of exercises (4 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 01_devices.ipynb`, which grades your own copy) also runs *hidden* tests, which
# compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test
# is a good sign, not a guarantee.
#
# No GPU is needed: on a laptop every cell runs on the CPU, and the GPU branches
# are exercised with a *simulated* GPU.

# %%
import time

import numpy as np
import torch
from torch import nn

from course.checks import check_equal, check_that, check_type
from course.devices import choose_device, cupy_status, describe_device
from course.doctor import doctor_text
from course.plots import plot_timings, show
from course.simulate import FakeGPU, simulate_hardware
from course.timing import benchmark

GIB = 1024**3  # bytes in a GiB
print(f"torch {torch.__version__}, numpy {np.__version__}")

# %% [markdown]
# ## 1. Why GPUs?
#
# A CPU has a handful of powerful cores (section 4 prints how many this machine
# has), each able to run any program, one step after another. A GPU has thousands
# of simple cores that all apply the *same* operation to different elements at
# once. Think of one brilliant professor against ten thousand pupils: for one hard
# sum the professor wins; to add a million pairs of numbers the pupils win, as
# long as somebody carries the million pairs into their classroom
# first (that carrying is the host-to-device copy, and it is never free).
#
# You can see the same idea on the CPU alone. A Python loop handles one element at a
# time; NumPy hands the whole array to compiled code that uses vector instructions.
# The timer below warms up, repeats and reports the median (Day 03 explains why an
# honest GPU timer must also *synchronise*).

# %%
n = 100_000
values = np.random.default_rng(0).random(n, dtype=np.float32)


def one_at_a_time():
    return [2.0 * v + 1.0 for v in values]


def whole_array():
    return 2.0 * values + 1.0


loop_time = benchmark(one_at_a_time, repeat=5, label="Python loop")
vector_time = benchmark(whole_array, repeat=20, label="NumPy, whole array")
print(loop_time)
print(vector_time)
print(f"Whole-array code is {loop_time.median / vector_time.median:.0f}x faster "
      f"on {n:,} elements, measured just now on this machine.")
plot_timings({"Python loop": loop_time, "NumPy": vector_time}, log_y=True,
             title=f"{n:,} elements, log scale (median; whiskers: quartiles)")
show("01_loop_vs_vector")

# %% [markdown]
# ## 2. How PyTorch sees the hardware
#
# PyTorch names every place a tensor can live with a `torch.device`: `"cpu"`,
# `"cuda"` (NVIDIA GPUs, numbered `cuda:0`, `cuda:1`, ...; plain `"cuda"` means
# the *current* CUDA device, GPU 0 unless `torch.cuda.set_device` changed it) or
# `"mps"` (Apple silicon). These questions never fail, even without a GPU:

# %%
print("CUDA available:", torch.cuda.is_available())
print("CUDA devices:  ", torch.cuda.device_count())
print("MPS available: ", torch.backends.mps.is_available())
print("torch built for CUDA:", torch.version.cuda)

gpu0 = torch.device("cuda:0")
print(f"A device object: {gpu0!r}, type={gpu0.type!r}, index={gpu0.index}")
print("Creating a device object does not need the device:", torch.device("cuda"))

# %% [markdown]
# CuPy, the GPU twin of NumPy used from Day 05, runs on NVIDIA GPUs through CUDA,
# and on AMD GPUs through its separate ROCm builds; not on Apple silicon. It can
# be *installed* on a machine without a GPU (the import works) and still be unable
# to run anything, so the course tries it for real:

# %%
status = cupy_status()
print(f"CuPy installed: {status.installed}, usable: {status.usable} - {status.reason}")

# %% [markdown]
# ## 3. Picking a device, with a fallback
#
# The most useful line in GPU code is the one that makes it run *anywhere*: use the
# GPU if there is one, otherwise the CPU. Apple's MPS backend sits in between.
#
# ### Task 1.1 - `pick_device`
#
# Write `pick_device(prefer=None)` following the rules in its docstring. Use
# `torch.cuda.is_available()` and `torch.backends.mps.is_available()` (call them
# through `torch.`, as written, so the tests can simulate hardware).

# %% nbgrader={"grade_id": "01-pick-device", "solution": true}
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    """Return the torch.device to run on.

    Args:
        prefer: None, "cpu", "cuda" or "mps".

    Returns:
        A torch.device without an index: torch.device("cuda"), torch.device("mps")
        or torch.device("cpu"), chosen by these rules:

        - prefer=None: "cuda" if torch.cuda.is_available(), else "mps" if
          torch.backends.mps.is_available(), else "cpu".
        - prefer="cpu": always "cpu".
        - prefer="cuda" or "mps": that device if it is available, otherwise the
          same answer as prefer=None (the fallback).

    Raises:
        ValueError: prefer is anything else; the message lists the valid choices.
    """
    # Hint: check `prefer` first, then try the preferred device, then fall back.
    ### BEGIN SOLUTION
    if prefer not in VALID_PREFERENCES:
        raise ValueError(
            f"prefer must be one of {VALID_PREFERENCES}, not {prefer!r}"
        )
    if prefer == "cpu":
        return torch.device("cpu")
    if prefer == "cuda" and torch.cuda.is_available():
        return torch.device("cuda")
    if prefer == "mps" and torch.backends.mps.is_available():
        return torch.device("mps")
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
    ### END SOLUTION


device = pick_device()
print("This notebook runs on:", device)

# %% nbgrader={"grade": true, "grade_id": "01-pick-device-test", "points": 1}
"""pick_device returns a torch.device on this machine, a simulated GPU and a Mac."""
check_type(pick_device(), torch.device, "pick_device()")
check_equal(pick_device("cpu").type, "cpu", 'pick_device("cpu").type')
with simulate_hardware(gpus=[FakeGPU()]):
    check_equal(pick_device().type, "cuda", "pick_device() with a GPU present")
with simulate_hardware(gpus=[], mps=False):
    check_equal(pick_device("cuda").type, "cpu", 'pick_device("cuda") without a GPU')
with simulate_hardware(gpus=[], mps=True):
    check_equal(pick_device().type, "mps", "pick_device() on a Mac (no CUDA, MPS)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "01-pick-device-hidden-test", "points": 2}
"""pick_device matches the reference on every hardware combination (hidden)."""
check_type(pick_device(), torch.device, "pick_device()")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_got = {}
for _gpus in ([], [FakeGPU()], [FakeGPU(), FakeGPU(name="NVIDIA A100")]):
    for _mps in (False, True):
        with simulate_hardware(gpus=_gpus, mps=_mps):
            for _prefer in (None, "cpu", "cuda", "mps"):
                _label = f"pick_device({_prefer!r}), {len(_gpus)} GPU(s), mps={_mps}"
                _got[_label] = outcome(pick_device, _prefer)
for _bad in ("tpu", "gpu", "", "CUDA", 0):
    _got[f"pick_device({_bad!r})"] = outcome(pick_device, _bad)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Describing a device
#
# Knowing *that* there is a GPU is not enough: its memory decides how big a model or
# batch fits, and its compute capability decides which features (for example
# half-precision tensor cores) it has (CUDA C++ Programming Guide, "Compute
# Capabilities"). `torch.cuda.get_device_properties(i)` returns
# an object with `.name`, `.total_memory` (bytes), `.major`, `.minor` and
# `.multi_processor_count` (the number of streaming multiprocessors, each a group
# of simple cores). Unlike the questions above, it needs a CUDA device: without
# one it raises, so ask only for a `"cuda"` device. The course's `describe_device`
# reads them for you; on a laptop, a simulated GPU shows what a real one reports:

# %%
print(describe_device(device))
with simulate_hardware(gpus=[FakeGPU()]):
    props = torch.cuda.get_device_properties(0)
    print("Simulated:", props.name, f"{props.total_memory / 1024**3:.0f} GiB,",
          f"compute capability {props.major}.{props.minor},",
          f"{props.multi_processor_count} multiprocessors")

# %% [markdown]
# ## 5. How much memory can I still use?
#
# Total memory is what the card has. `torch.cuda.mem_get_info(i)` returns
# `(free_bytes, total_bytes)`: *free* is what no one holds yet, after the driver,
# other programs and this process have taken their share. But part of this
# process's share is still yours. PyTorch's caching allocator keeps the blocks of
# freed tensors for reuse instead of handing them back to the driver, so
#
# - `torch.cuda.memory_allocated(i)` is the bytes held by live tensors;
# - `torch.cuda.memory_reserved(i)` is the bytes the allocator holds, live tensors
#   and its cache together;
# - `memory_reserved(i) - memory_allocated(i)` is free for *this* process's next
#   tensors, though not for anyone else (PyTorch documentation, "CUDA semantics",
#   memory management; `torch.cuda.empty_cache()` hands it back to the driver).
#
# So after a big tensor is deleted, `mem_get_info` does not report its memory as
# free, yet your next tensor of that size fits. `torch.cuda.memory_summary()`
# prints the allocator's whole table when you need more.
#
# ### Task 1.2 - `usable_memory`

# %% nbgrader={"grade_id": "01-usable-memory", "solution": true}
def usable_memory(device):
    """Return how many bytes of new tensors this process can still put on device.

    Args:
        device: a torch.device or a string such as "cpu", "cuda", "cuda:1", "mps".
            "cuda" without an index means the current CUDA device
            (torch.cuda.current_device(), GPU 0 unless changed).

    Returns:
        For a CUDA device with index i: an int, the free bytes from
        torch.cuda.mem_get_info(i) plus the allocator's cache,
        torch.cuda.memory_reserved(i) - torch.cuda.memory_allocated(i).
        For any other device: None (this function reports GPU memory only), so it
        never fails on a laptop.
    """
    # Hint: torch.device(device) accepts both strings and devices; its .index
    # is None when no index was given.
    ### BEGIN SOLUTION
    device = torch.device(device)
    if device.type != "cuda":
        return None
    index = device.index
    if index is None:
        index = torch.cuda.current_device()
    free, _total = torch.cuda.mem_get_info(index)
    cached = torch.cuda.memory_reserved(index) - torch.cuda.memory_allocated(index)
    return int(free + cached)
    ### END SOLUTION


print(f"usable on {device}: {usable_memory(device)}")
with simulate_hardware(gpus=[FakeGPU()]) as hw:
    gpu = hw.gpus[0]
    print(f"Simulated {gpu.name}: {gpu.free_memory / GIB:.2f} GiB free for anyone, "
          f"{usable_memory('cuda') / GIB:.2f} GiB usable by this process")

# %% nbgrader={"grade": true, "grade_id": "01-usable-memory-test", "points": 1}
"""usable_memory is None off CUDA and counts the allocator's cache on a GPU."""
check_equal(usable_memory("cpu"), None, 'usable_memory("cpu")')
with simulate_hardware(gpus=[FakeGPU(total_memory=80 * GIB, free_memory=60 * GIB,
                                     allocated=5 * GIB, reserved=8 * GIB)]):
    usable = usable_memory("cuda")
check_type(usable, int, 'usable_memory("cuda")')
check_that(
    usable != 60 * GIB,
    "usable_memory gives only what mem_get_info reports free. Add the "
    "allocator's cache, memory_reserved - memory_allocated (here 3 GiB): "
    "your next tensors can reuse it.",
)
check_equal(usable, 63 * GIB, "usable_memory with 60 GiB free and 3 GiB cached")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "01-usable-memory-hidden-test", "points": 2}
"""usable_memory matches the reference on several simulated GPUs (hidden)."""
check_equal(usable_memory("cpu"), None, 'usable_memory("cpu")')
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_rng = np.random.default_rng(1)
_got = {}
for _trial in range(4):
    _total = int(_rng.integers(2, 200)) * GIB + int(_rng.integers(0, GIB))
    _free = int(_rng.integers(0, _total))
    _reserved = int(_rng.integers(0, _total - _free + 1))
    _alloc = int(_rng.integers(0, _reserved + 1))
    _spec = [
        FakeGPU(total_memory=16 * GIB, free_memory=GIB, allocated=GIB, reserved=GIB),
        FakeGPU(total_memory=_total, free_memory=_free, allocated=_alloc,
                reserved=_reserved),
    ]
    with simulate_hardware(gpus=_spec, mps=True):
        for _dev in ("cuda:1", torch.device("cuda", 1), "cuda", "cuda:0", "mps",
                     "cpu", torch.device("cpu")):
            _label = f"usable_memory({_dev!r}), trial {_trial}"
            _got[_label] = outcome(usable_memory, _dev)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Will my model train here?
#
# Training needs far more memory than the model's weights. For each trainable
# parameter the GPU holds the parameter itself, its gradient (same size), and
# the optimizer's state: nothing for plain SGD, one momentum buffer for SGD with
# momentum, two moment buffers (`exp_avg`, `exp_avg_sq`) for Adam and AdamW
# (PyTorch documentation of `torch.optim.SGD` and `torch.optim.Adam`). So a
# float32 model trained with Adam needs 4 + 4 + 8 = 16 bytes per parameter, before
# a single activation. Buffers (for example BatchNorm's running statistics) are
# stored once, without gradient or state; so are frozen parameters
# (`requires_grad=False`).
#
# You can size a model you could never allocate: built on the **meta** device,
# its tensors have shapes and dtypes but no data.
#
# ### Task 1.3 - `training_bytes`

# %% nbgrader={"grade_id": "01-training-memory", "solution": true}
STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


def training_bytes(model, optimizer="adam"):
    """Bytes of GPU memory that training `model` holds, before activations.

    Args:
        model: a torch.nn.Module, on any device (the meta device included).
        optimizer: a key of STATES_PER_PARAMETER: how many tensors the size of
            each trainable parameter the optimizer keeps.

    Returns:
        An int: the sum, over model.named_parameters(), of each parameter's bytes
        (numel() * element_size()) times 1 + (1 + states) if it requires a
        gradient (its gradient and the optimizer's states), or times 1 if it is
        frozen; plus each buffer's bytes (model.named_buffers()) once.

    Raises:
        ValueError: optimizer is not a key of STATES_PER_PARAMETER; the message
            lists the keys.
    """
    # Hint: named_parameters() lists a parameter shared by two layers once.
    ### BEGIN SOLUTION
    if optimizer not in STATES_PER_PARAMETER:
        raise ValueError(
            f"optimizer must be one of {list(STATES_PER_PARAMETER)}, "
            f"not {optimizer!r}"
        )
    states = STATES_PER_PARAMETER[optimizer]
    total = 0
    for _name, param in model.named_parameters():
        size = param.numel() * param.element_size()
        total += size * (2 + states) if param.requires_grad else size
    for _name, buffer in model.named_buffers():
        total += buffer.numel() * buffer.element_size()
    return int(total)
    ### END SOLUTION


print(f"nn.Linear(3, 2) with Adam: {training_bytes(nn.Linear(3, 2), 'adam')} bytes")

# %%
with torch.device("meta"):  # 24 layers of 4096 x 4096: nothing is allocated
    big = nn.Sequential(*[nn.Linear(4096, 4096) for _ in range(24)])
n_params = sum(p.numel() for p in big.parameters())
print(f"{n_params / 1e6:.1f} M parameters, built on {next(big.parameters()).device}")
for name in STATES_PER_PARAMETER:
    print(f"  training with {name:>8}: {training_bytes(big, name) / GIB:6.2f} GiB")

# %% [markdown]
# Those figures are arithmetic; PyTorch can confirm them. Train a small model on
# the CPU for one step, then add up the tensors that exist: parameters,
# `.grad`s and every tensor in `optimizer.state`. (Adam also keeps a `step`
# counter, one 4-byte scalar per parameter tensor, which `training_bytes`
# leaves out.)

# %%
small = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
adam = torch.optim.Adam(small.parameters(), lr=1e-3)
small(torch.randn(8, 20)).sum().backward()
adam.step()
held = sum(p.nbytes + p.grad.nbytes for p in small.parameters())
held += sum(t.nbytes for s in adam.state.values() for t in s.values()
            if torch.is_tensor(t))
steps = 4 * len(adam.state)
print(f"measured after one Adam step: {held:,} bytes, of which {steps} are "
      f"step counters; training_bytes says {training_bytes(small, 'adam'):,}")

# %% nbgrader={"grade": true, "grade_id": "01-training-memory-test", "points": 1}
"""training_bytes counts weights, gradients and optimizer state."""
tiny = nn.Linear(3, 2)  # 8 float32 parameters: 32 bytes
check_type(training_bytes(tiny, "sgd"), int, 'training_bytes(tiny, "sgd")')
for _name, _expected in (("sgd", 64), ("momentum", 96), ("adam", 128)):
    _got = training_bytes(tiny, _name)
    check_that(
        _got != 32,
        "training_bytes(tiny, {name!r}) counts the weights only: add one "
        "gradient per trainable parameter and the optimizer's states.",
        name=_name,
    )
    check_equal(_got, _expected, f"training_bytes(nn.Linear(3, 2), {_name!r})")
check_equal(training_bytes(small, "adam") + steps, held,
            "training_bytes(small) against the tensors measured above")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "01-training-memory-hidden-test", "points": 2}
"""training_bytes matches the reference on several models (hidden)."""
check_type(training_bytes(nn.Linear(3, 2)), int, "training_bytes(nn.Linear(3, 2))")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

torch.manual_seed(0)
_frozen = nn.Sequential(nn.Linear(10, 10), nn.Linear(10, 4))
_frozen[0].requires_grad_(False)
_tied = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 50, bias=False))
_tied[1].weight = _tied[0].weight
with torch.device("meta"):
    _meta = nn.Sequential(nn.Linear(1000, 3000), nn.LayerNorm(3000))
_models = {
    "BatchNorm MLP": nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.ReLU()),
    "first layer frozen": _frozen,
    "tied embedding": _tied,
    "float16 and float64 layers": nn.Sequential(
        nn.Linear(4, 6).half(), nn.Linear(6, 2).double()),
    "meta device": _meta,
    "no parameters": nn.ReLU(),
}
_got = {}
for _label, _model in _models.items():
    for _name in ("sgd", "momentum", "adam", "adamw"):
        _got[f"training_bytes({_label}, {_name!r})"] = outcome(
            training_bytes, _model, _name)
    _got[f"training_bytes({_label})"] = outcome(training_bytes, _model)
for _bad in ("Adam", "rmsprop", None):
    _got[f"training_bytes(model, {_bad!r})"] = outcome(
        training_bytes, _models["meta device"], _bad)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# Put the two together: does the 24-layer model train with Adam on a 4 GiB laptop
# GPU, or on a 16 GB Tesla T4? The cards are simulated, and their free memory is
# an assumption (3 of the laptop card's 4 GiB, 15.5 of the T4's 15.8 GB);
# activations still need room on top.

# %%
cards = {
    "GeForce RTX 3050 Laptop": FakeGPU(name="NVIDIA GeForce RTX 3050 Laptop GPU",
                                       total_memory=4 * GIB, free_memory=3 * GIB,
                                       allocated=0, reserved=0),
    "Tesla T4": FakeGPU(name="Tesla T4", total_memory=15_835_660_288,
                        free_memory=15_500_000_000, allocated=0, reserved=0),
}
need = training_bytes(big, "adam")
for label, card in cards.items():
    with simulate_hardware(gpus=[card]):
        room = usable_memory("cuda")
    verdict = "fits" if need <= room else "does not fit"
    print(f"{label:>24}: {room / GIB:5.2f} GiB usable, need {need / GIB:.2f} GiB: "
          f"{verdict}")

# %% [markdown]
# On a real GPU, measure instead of adding up: reset the peak counter, run one
# training step, and read the highest allocation. Two things come on top of
# `training_bytes`: the input and the activations kept for the backward pass; and,
# at the step, a temporary of Adam's default `foreach` path on CUDA the size of
# all parameters (`_foreach_sqrt` of the second moments), made after the
# activations are freed.
# `torch.cuda.max_memory_allocated` needs a CUDA GPU; on a laptop this cell says
# so.

# %%
if device.type == "cuda":
    model_gpu = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(),
                              nn.Linear(4096, 10)).to(device)
    opt_gpu = torch.optim.Adam(model_gpu.parameters())
    torch.cuda.reset_peak_memory_stats(device)
    model_gpu(torch.randn(256, 4096, device=device)).sum().backward()
    opt_gpu.step()
    peak = torch.cuda.max_memory_allocated(device)
    print(f"peak {peak / 2**20:.1f} MiB against training_bytes "
          f"{training_bytes(model_gpu, 'adam') / 2**20:.1f} MiB (the rest: the "
          "input, the activations, Adam's foreach temporary at the step and the "
          "allocator's rounding)")
else:
    print(f"No CUDA GPU here ({device}): the peak-memory counter needs one.")

# %% [markdown]
# ## 7. How big a problem fits?
#
# A matrix multiply `C = A @ B` of two n x n matrices needs three n x n arrays in
# memory at once. Each element takes `element_size` bytes: 4 for `float32`, 2 for
# `float16`, 8 for `float64`. So the largest n that fits in `free` bytes satisfies
# `copies * n * n * element_size <= free`.
#
# ### Task 1.4 - `largest_square_matrix`

# %% nbgrader={"grade_id": "01-largest-matrix", "solution": true}
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    """Return the largest n such that `copies` n x n matrices of `dtype` fit.

    Args:
        free_bytes: memory available, in bytes (an int >= 0).
        dtype: a torch dtype; its size in bytes is
            torch.tensor([], dtype=dtype).element_size().
        copies: how many n x n matrices must fit at once (an int >= 1).

    Returns:
        The largest int n >= 0 with copies * n * n * element_size <= free_bytes.

    Raises:
        ValueError: free_bytes < 0 or copies < 1.
    """
    # Hint: math.isqrt gives an exact integer square root; check the answer.
    ### BEGIN SOLUTION
    import math

    if free_bytes < 0 or copies < 1:
        raise ValueError("free_bytes must be >= 0 and copies >= 1")
    element_size = torch.tensor([], dtype=dtype).element_size()
    return math.isqrt(int(free_bytes) // (copies * element_size))
    ### END SOLUTION


room = usable_memory(device)
if room is not None:
    n_max = largest_square_matrix(room)
    print(f"Three float32 matrices of up to {n_max:,} x {n_max:,} fit on {device}.")
else:
    n_max = largest_square_matrix(8 * 1024**3)
    print(f"No GPU here. With 8 GiB free, {n_max:,} x {n_max:,} float32 would fit.")

# %% nbgrader={"grade": true, "grade_id": "01-largest-matrix-test", "points": 1}
"""largest_square_matrix gives the right n for simple cases."""
check_equal(largest_square_matrix(3 * 4 * 100 * 100), 100, "n for exactly 100 x 100")
check_equal(largest_square_matrix(3 * 4 * 100 * 100 - 1), 99, "n for one byte less")
check_equal(largest_square_matrix(0), 0, "n for no memory")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "01-largest-matrix-hidden-test", "points": 2}
"""largest_square_matrix matches the reference for many sizes and dtypes (hidden)."""
check_equal(largest_square_matrix(48), 2, "largest_square_matrix(48)")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_rng = np.random.default_rng(7)
_got = {}
for _dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8):
    for _copies in (1, 2, 3, 5):
        for _free in [int(x) for x in _rng.integers(0, 2**40, 4)] + [141 * 1024**3]:
            _label = f"largest_square_matrix({_free}, {_dtype}, copies={_copies})"
            _got[_label] = outcome(largest_square_matrix, _free, _dtype, _copies)
for _args in ((-1,), (100, torch.float32, 0)):
    _got[f"largest_square_matrix{_args}"] = outcome(largest_square_matrix, *_args)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. A first computation on the chosen device
#
# Everything comes together: pick a device, put data there, compute, and time it
# honestly (the timer synchronises the GPU; Day 03 shows what happens otherwise).
# Without a GPU there is one row, the CPU; on a GPU box a second row shows the GPU.

# %%
size = 512
a_cpu = torch.randn(size, size)
b_cpu = torch.randn(size, size)
results = {"cpu": benchmark(lambda: a_cpu @ b_cpu, "cpu", repeat=10, label="matmul")}
if device.type != "cpu":
    a_dev, b_dev = a_cpu.to(device), b_cpu.to(device)
    results[str(device)] = benchmark(lambda: a_dev @ b_dev, device, repeat=10,
                                     label="matmul")
for result in results.values():
    gflops = 2 * size**3 / result.median / 1e9
    print(f"{result}  ->  {gflops:.1f} GFLOP/s")
choice = choose_device()
print(f"course's own choice: {choice.device} because {choice.reason}")

# %% [markdown]
# ## 9. What `course doctor` reports
#
# `python -m course doctor` (or `course doctor` in a terminal) prints the table below:
# versions, GPUs, whether CuPy can really run, and which device and array backend
# the lessons will use. Paste it into any question you ask about the course.

# %%
start = time.perf_counter()
print(doctor_text())
print(f"(report took {time.perf_counter() - start:.2f} s)")

# %% [markdown]
# ## Summary
#
# - A GPU wins by doing the same simple operation on many elements at once; whole-
#   array code is the first step toward it, even on a CPU.
# - `torch.cuda.is_available()`, `torch.cuda.device_count()` and `torch.device` tell
#   you what hardware there is and never fail without a GPU;
#   `torch.cuda.get_device_properties` describes a CUDA device and raises without one.
# - `pick_device` with a fallback makes one notebook run on a laptop, Colab and a
#   GPU box.
# - Free memory plus the allocator's cache (`memory_reserved - memory_allocated`,
#   PyTorch documentation), not total memory, limits how large a problem fits.
# - Training holds each trainable parameter, its gradient and the optimizer's
#   states: 16 bytes per float32 parameter with Adam. The `meta` device sizes a
#   model without allocating it; `torch.cuda.max_memory_allocated` measures the
#   real peak on a GPU.
#
# **Open exercises.**
#
# 1. Set `os.environ["COURSE_FORCE_CPU"] = "1"` and call `choose_device()` again.
#    When would you want this on a GPU machine?
# 2. Change `size` in section 7 to 64 and to 2048. On a GPU box, at which size does
#    the GPU start to win? (Day 03 answers this with a full sweep.)
# 3. Use `largest_square_matrix` with `torch.float16`: how much larger can n be,
#    and what do you give up?
