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
# - size a problem to the memory a device has left;
# - read the environment report of `course doctor`.
#
# **Time.** About 25 minutes of reading and 40 minutes of exercises (4 tasks).
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
import os
import time

import numpy as np
import torch

from course.checks import check_close, check_equal, check_keys, check_type
from course.devices import choose_device, cupy_status
from course.doctor import doctor_text
from course.plots import plot_timings, show
from course.simulate import FakeGPU, simulate_hardware
from course.timing import benchmark

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
# one it raises, so ask only for a `"cuda"` device.
#
# ### Task 1.2 - `describe_device`

# %% nbgrader={"grade_id": "01-describe-device", "solution": true}
DESCRIPTION_KEYS = ("type", "name", "total_memory_gb", "compute_capability",
                    "multiprocessors")


def describe_device(device):
    """Describe a device as a dict with exactly the keys in DESCRIPTION_KEYS.

    Args:
        device: a torch.device or a string such as "cpu", "cuda", "cuda:1", "mps".
            "cuda" without an index means the current CUDA device
            (torch.cuda.current_device(), GPU 0 unless changed).

    Returns:
        dict with
        - "type": the device type as a string ("cuda", "mps" or "cpu");
        - "name": for CUDA, the properties' .name; "Apple GPU" for MPS;
          f"CPU ({os.cpu_count()} cores)" for the CPU;
        - "total_memory_gb": CUDA only: total_memory / 1024**3 rounded to 1
          decimal (a float); None otherwise;
        - "compute_capability": CUDA only: "major.minor" as a string, e.g. "9.0";
          None otherwise;
        - "multiprocessors": CUDA only: multi_processor_count (an int); None
          otherwise.
    """
    # Hint: torch.device(device) accepts both strings and devices.
    ### BEGIN SOLUTION
    device = torch.device(device)
    info = dict.fromkeys(DESCRIPTION_KEYS)
    info["type"] = device.type
    if device.type == "cuda":
        index = device.index
        if index is None:
            index = torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        info["name"] = props.name
        info["total_memory_gb"] = round(props.total_memory / 1024**3, 1)
        info["compute_capability"] = f"{props.major}.{props.minor}"
        info["multiprocessors"] = props.multi_processor_count
    elif device.type == "mps":
        info["name"] = "Apple GPU"
    else:
        info["name"] = f"CPU ({os.cpu_count()} cores)"
    return info
    ### END SOLUTION


print(describe_device(device))
with simulate_hardware(gpus=[FakeGPU()]):
    print("Simulated:", describe_device("cuda"))

# %% nbgrader={"grade": true, "grade_id": "01-describe-device-test", "points": 1}
"""describe_device returns a dict with the right keys for the CPU and a GPU."""
cpu_info = describe_device("cpu")
check_keys(cpu_info, DESCRIPTION_KEYS, 'describe_device("cpu")')
check_equal(cpu_info["type"], "cpu", 'describe_device("cpu")["type"]')
check_equal(cpu_info["total_memory_gb"], None, 'cpu_info["total_memory_gb"]')
with simulate_hardware(gpus=[FakeGPU(name="NVIDIA H200", major=9, minor=0)]):
    gpu_info = describe_device(torch.device("cuda"))
check_equal(gpu_info["name"], "NVIDIA H200", "the simulated GPU's name")
check_equal(gpu_info["compute_capability"], "9.0", "compute_capability")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "01-describe-device-hidden-test", "points": 2}
"""describe_device matches the reference for several GPUs, MPS and the CPU (hidden)."""
check_keys(describe_device("cpu"), DESCRIPTION_KEYS, 'describe_device("cpu")')
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_gpus = [
    FakeGPU(name="NVIDIA GeForce RTX 3050 Laptop GPU", total_memory=4 * 1024**3,
            major=8, minor=6, multi_processor_count=16),
    FakeGPU(name="Tesla T4", total_memory=15_835_660_288, major=7, minor=5,
            multi_processor_count=40),
]
_got = {}
with simulate_hardware(gpus=_gpus, mps=True):
    for _dev in ("cuda", "cuda:0", "cuda:1", torch.device("cuda", 1), "cpu", "mps"):
        _got[f"describe_device({_dev!r})"] = outcome(describe_device, _dev)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. How much memory is left?
#
# Total memory is what the card has; *free* memory (`torch.cuda.mem_get_info`) is
# what no one holds yet, after the driver, other programs and PyTorch's own caching
# allocator have taken their share (PyTorch documentation, "CUDA semantics",
# memory management). Part of that share is still yours: the allocator keeps
# freed blocks for reuse, so `torch.cuda.memory_reserved(i) -
# torch.cuda.memory_allocated(i)` bytes are free for this process's tensors though
# not for anyone else (same documentation; `torch.cuda.empty_cache()` hands them
# back).
# `torch.cuda.mem_get_info(i)` returns `(free_bytes, total_bytes)` and
# `torch.cuda.memory_allocated(i)` the bytes held by live tensors of this process.
#
# ### Task 1.3 - `gpu_memory_report`

# %% nbgrader={"grade_id": "01-memory-report", "solution": true}
REPORT_KEYS = ("device", "total_gb", "free_gb", "used_gb", "torch_allocated_gb")


def gpu_memory_report(device):
    """Report a device's memory in GiB, as a dict with the keys in REPORT_KEYS.

    Args:
        device: a torch.device or string; "cuda" without an index means the
            current CUDA device (torch.cuda.current_device(), GPU 0 unless
            changed).

    Returns:
        dict with
        - "device": str of the device with its index for CUDA ("cuda:0"), else
          its type ("cpu", "mps");
        - for CUDA: "total_gb", "free_gb" from torch.cuda.mem_get_info(index),
          "used_gb" = total - free, and "torch_allocated_gb" from
          torch.cuda.memory_allocated(index); each bytes / 1024**3 rounded to 2
          decimals;
        - for any other device the four numbers are None (there is no GPU memory
          to report), so the function never fails on a laptop.
    """
    # Hint: compute in bytes, convert once at the end.
    ### BEGIN SOLUTION
    device = torch.device(device)
    report = dict.fromkeys(REPORT_KEYS)
    if device.type != "cuda":
        report["device"] = device.type
        return report
    index = device.index
    if index is None:
        index = torch.cuda.current_device()
    free, total = torch.cuda.mem_get_info(index)
    report["device"] = f"cuda:{index}"
    report["total_gb"] = round(total / 1024**3, 2)
    report["free_gb"] = round(free / 1024**3, 2)
    report["used_gb"] = round((total - free) / 1024**3, 2)
    allocated = torch.cuda.memory_allocated(index)
    report["torch_allocated_gb"] = round(allocated / 1024**3, 2)
    return report
    ### END SOLUTION


print(gpu_memory_report(device))

# %% nbgrader={"grade": true, "grade_id": "01-memory-report-test", "points": 1}
"""gpu_memory_report works on the CPU and reports a simulated GPU's memory."""
check_equal(gpu_memory_report("cpu"), dict.fromkeys(REPORT_KEYS) | {"device": "cpu"},
            'gpu_memory_report("cpu")')
GIB = 1024**3
with simulate_hardware(gpus=[FakeGPU(total_memory=80 * GIB, free_memory=60 * GIB,
                                     allocated=5 * GIB)]):
    report = gpu_memory_report("cuda")
check_keys(report, REPORT_KEYS, 'gpu_memory_report("cuda")')
check_equal(report["device"], "cuda:0", 'report["device"]')
check_close(report["used_gb"], 20.0, rtol=0, atol=0.0101,
            name='report["used_gb"] (to 0.01)')
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "01-memory-report-hidden-test", "points": 2}
"""gpu_memory_report matches the reference on several simulated GPUs (hidden)."""
check_keys(gpu_memory_report("cpu"), REPORT_KEYS, 'gpu_memory_report("cpu")')
### BEGIN HIDDEN TESTS
from course.results import Approx, outcome, submit

_rng = np.random.default_rng(1)
_got = {}
for _trial in range(5):
    _total = int(_rng.integers(2, 200)) * 1024**3 + int(_rng.integers(0, 1024**3))
    _free = int(_rng.integers(0, _total))
    _alloc = int(_rng.integers(0, _total - _free + 1))
    _spec = [FakeGPU(), FakeGPU(total_memory=_total, free_memory=_free,
                                 allocated=_alloc)]
    with simulate_hardware(gpus=_spec, mps=True):
        for _dev in ("cuda:1", torch.device("cuda", 1), "cuda", "mps", "cpu"):
            _label = f"gpu_memory_report({_dev!r}), trial {_trial}"
            # Rounded figures may differ by one in the last place kept.
            _got[_label] = Approx(outcome(gpu_memory_report, _dev), rtol=0, atol=0.0101)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. How big a problem fits?
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


report = gpu_memory_report(device)
if report["free_gb"] is not None:
    n_max = largest_square_matrix(int(report["free_gb"] * 1024**3))
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
# ## 7. A first computation on the chosen device
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
# ## 8. What `course doctor` reports
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
# - Free memory, not total memory, limits how large a problem fits.
#
# **Open exercises.**
#
# 1. Set `os.environ["COURSE_FORCE_CPU"] = "1"` and call `choose_device()` again.
#    When would you want this on a GPU machine?
# 2. Change `size` in section 7 to 64 and to 2048. On a GPU box, at which size does
#    the GPU start to win? (Day 03 answers this with a full sweep.)
# 3. Use `largest_square_matrix` with `torch.float16`: how much larger can n be,
#    and what do you give up?
