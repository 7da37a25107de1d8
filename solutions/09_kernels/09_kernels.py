# %% [markdown]
# # Day 09 - Write your own GPU kernels
#
# So far every GPU operation came ready-made: `X @ w` in CuPy or PyTorch launches a
# kernel someone else wrote. The learner of Day 05's article went further and wrote
# a CUDA program in Rust for logistic regression. Comparing it with their CuPy
# version, they wrote: "我写得并不高效的 CUDA 程序实际上比我的 cupy 程序 更快" (my
# not very efficient CUDA program was actually faster than my CuPy program), and
# "我没有进一步调查" (I did not investigate further). Today you write kernels
# yourself, in Python, with numba-cuda, and count one likely reason for what they
# saw.
#
# **Learning objectives.** By the end of this notebook you can
#
# - explain threads, blocks and the grid, and compute a launch configuration
#   that covers any number of elements;
# - write an element-wise kernel with a grid-stride loop and a bounds guard;
# - write a block reduction in shared memory, with the barriers it needs, and
#   see a checker catch a missing one on every run;
# - fuse Day 06's gradient step into one kernel with atomics, check it against
#   NumPy, and count the launches and temporaries it saves.
#
# **Time.** About 35 minutes of reading and 50 minutes of exercises (4 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 09_kernels.ipynb`, which grades your own copy) also runs *hidden* tests, which
# compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test
# is a good sign, not a guarantee.
#
# **No GPU needed.** numba's CUDA simulator runs the same kernel source on the CPU,
# one Python thread per CUDA thread. It checks correctness: wrong indices,
# out-of-bounds accesses (with the thread and block that made them) and, with
# `course.cudasim.race_check`, races. It cannot show speed (section 2 prints the
# simulator's time against NumPy's), so keep launches small. Nor does it compile: it
# runs your kernel as Python, so it would also run a NumPy call such as `np.dot`
# inside a kernel, which the CUDA compiler refuses. Inside kernels use only indexing,
# arithmetic, `math` functions and `cuda.*` calls, as this lesson does.
#
# `with checked() as report:` runs `race_check` on the simulator (on a GPU the
# launches run unchecked and `report` is None). When your notebook is graded,
# the kernels a test launches run on the grader's simulated GPU, in a process
# of their own: there a NumPy array you pass to a kernel is copied to the
# device before the launch and back after it, as numba does on a real GPU
# (numba-cuda's documentation, "Data transfer"), and each copy is counted.
# Your kernel's source is what runs, and what must compile for a GPU.

# %%
from course.cudasim import choose_target, describe_target

TARGET = choose_target()  # before numba.cuda is imported: "gpu" or "simulator"
print(f"kernels run on: {TARGET}. {describe_target(TARGET)}")

# %%
import textwrap
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from numba import config as numba_config
from numba import cuda

from course import gpumodel
from course.checks import check_close, check_equal, check_that, check_type
from course.cudasim import DivergentBarrierError, KernelRaceError, checked, race_check
from course.devices import cupy_usable
from course.diagrams import diagram
from course.plots import show

# %% [markdown]
# ## 1. Threads, blocks and the grid
#
# A kernel is one function that many threads run at once, each on its own
# element. Threads come in *blocks* (up to 1,024 threads; threads of one block
# can share on-chip memory and wait for each other), and blocks form the *grid*.
# You launch a kernel with `kernel[blocks, threads_per_block](arguments)`.
# Inside, `cuda.grid(1)` is the thread's global index:
# `cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x`.
#
# The grid has a whole number of blocks, so it usually has a few more threads
# than elements. Those threads must not touch memory past the end: every kernel
# *guards* its index.

# %%
diagram("grid_blocks_threads")

# %%
@cuda.jit
def fill_with_index(out):
    i = cuda.grid(1)
    if i < out.shape[0]:  # the bounds guard
        out[i] = i


demo = np.zeros(10, dtype=np.int64)
with checked():
    fill_with_index[3, 4](demo)  # 3 blocks of 4 threads: 12 threads, 10 elements
print(demo)

# %% [markdown]
# ### Task 9.1 - `launch_config`
#
# Return `(blocks, threads_per_block)`: the fewest blocks of `threads_per_block`
# threads that cover `n` elements. Refuse (`ValueError`) an `n` below 1 and a
# `threads_per_block` outside 1..1024, the CUDA limit.

# %% nbgrader={"grade_id": "09-launch-config", "solution": true}
def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    # Hint: integer ceiling division, (n + t - 1) // t.
    ### BEGIN SOLUTION
    if int(n) < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 1 <= int(threads_per_block) <= 1024:
        raise ValueError(
            f"threads_per_block must be in 1..1024, got {threads_per_block}")
    return (int(n) + int(threads_per_block) - 1) // int(threads_per_block), int(
        threads_per_block
    )
    ### END SOLUTION


print(launch_config(10, 4), launch_config(1_000_000, 256))

# %% nbgrader={"grade": true, "grade_id": "09-launch-config-test", "points": 1}
"""launch_config covers 1, a prime, and one more than a multiple of the block."""
for _n, _tpb, _blocks in ((1, 64, 1), (97, 32, 4), (65, 64, 2), (64, 64, 1)):
    _got = launch_config(_n, _tpb)
    check_type(_got, (tuple, list), f"launch_config({_n}, {_tpb})")
    check_equal(tuple(_got), (_blocks, _tpb), f"launch_config({_n}, {_tpb})")
_out = np.zeros(97, dtype=np.int64)
with checked():
    fill_with_index[launch_config(97, 32)](_out)
check_equal(_out.tolist(), list(range(97)), "fill_with_index with your configuration")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "09-launch-config-hidden-test", "points": 2}
"""launch_config matches the reference, and refuses bad input (hidden)."""
check_equal(tuple(launch_config(2, 1)), (2, 1), "launch_config(2, 1)")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_got = {}
for _n, _tpb in ((1, 1), (1, 1024), (2, 1024), (1023, 1024), (1025, 1024),
                 (7919, 64), (129, 64), (10**9 + 7, 256), (5, 3)):
    _value = outcome(launch_config, _n, _tpb)
    _got[f"launch_config({_n}, {_tpb})"] = (
        tuple(_value) if isinstance(_value, list) else _value
    )
for _n, _tpb in ((0, 64), (-3, 64), (10, 0), (10, 1025)):
    _value = outcome(launch_config, _n, _tpb)
    _got[f"launch_config({_n}, {_tpb}) raises"] = getattr(_value, "bases", None) and (
        "ValueError" in _value.bases
    )
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. SAXPY with a grid-stride loop
#
# SAXPY, `out = a * x + y`, is the "hello world" of GPU kernels. Launching one
# thread per element ties the kernel to one launch size. A *grid-stride loop*
# frees it: each thread starts at its global index and steps by the grid's size
# (`cuda.gridsize(1)`) until it passes the end, so any grid covers any array:
#
# ```python
# for i in range(start, n, stride): ...
# ```
#
# The loop's bound is the guard: no thread touches an element `>= n`.
#
# ### Task 9.2 - `saxpy_kernel`

# %% nbgrader={"grade_id": "09-saxpy", "solution": true}
@cuda.jit
def saxpy_kernel(a, x, y, out):
    """out[i] = a * x[i] + y[i] for every i, with any grid (grid-stride loop)."""
    ### BEGIN SOLUTION
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = a * x[i] + y[i]
    ### END SOLUTION


x = np.linspace(0, 1, 11, dtype=np.float32)
y = np.ones(11, dtype=np.float32)
out = np.zeros_like(x)
with checked():
    saxpy_kernel[2, 4](np.float32(2.0), x, y, out)  # 8 threads, 11 elements
print(out)

# How slow is the simulator? 64 elements, once simulated, once in NumPy.
x64, y64 = np.ones(64, np.float32), np.ones(64, np.float32)
started = time.perf_counter()
saxpy_kernel[2, 32](np.float32(2.0), x64, y64, np.zeros_like(x64))
simulated = time.perf_counter() - started
started = time.perf_counter()
for _ in range(1000):
    np.float32(2.0) * x64 + y64
numpy_time = (time.perf_counter() - started) / 1000
if numba_config.ENABLE_CUDASIM:
    print(f"simulated launch of 64 threads: {simulated * 1e3:.1f} ms; NumPy: "
          f"{numpy_time * 1e6:.1f} µs ({simulated / numpy_time:,.0f}x slower, "
          "measured here)")

# %% nbgrader={"grade": true, "grade_id": "09-saxpy-test", "points": 1}
"""SAXPY right with fewer threads than elements, and with more."""
for _n, _blocks, _tpb in ((11, 2, 4), (5, 2, 8)):
    _x = np.arange(_n, dtype=np.float32)
    _y = np.full(_n, 0.5, dtype=np.float32)
    _out = np.zeros(_n, dtype=np.float32)
    with checked() as _report:
        saxpy_kernel[_blocks, _tpb](np.float32(3.0), _x, _y, _out)
    check_close(_out, 3 * _x + _y, rtol=1e-6,
                name=f"saxpy with {_blocks} blocks of {_tpb} threads, n={_n}")
    if _report is not None:  # what the kernel itself wrote (NaN: not written)
        check_close(_report.written(3), 3 * _x + _y, rtol=1e-6,
                    name=f"out as saxpy_kernel wrote it (n={_n}): every element "
                         "must be written by the kernel, not the host")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "09-saxpy-hidden-test", "points": 2}
"""SAXPY matches the reference on many grids, with no out-of-bounds access (hidden)."""
_out = np.zeros(2, dtype=np.float32)
with checked():
    saxpy_kernel[1, 4](np.float32(1.0), np.ones(2, np.float32), np.ones(2, np.float32),
                       _out)
check_close(_out, [2.0, 2.0], name="saxpy of 1 * ones + ones")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, submit

_rng = np.random.default_rng(90)
_got = {}
for _n, _blocks, _tpb, _dtype in ((1, 1, 32, np.float32), (33, 1, 32, np.float32),
                                  (100, 3, 16, np.float64), (7, 4, 8, np.float64),
                                  (64, 2, 32, np.float32)):
    _x = _rng.normal(size=_n).astype(_dtype)
    _y = _rng.normal(size=_n).astype(_dtype)
    _out = np.zeros(_n, dtype=_dtype)
    _label = f"saxpy n={_n}, grid {_blocks}x{_tpb}, {np.dtype(_dtype).name}"
    _keys = [_label, f"{_label}: launches", f"{_label}: out as the kernel wrote it"]
    try:
        with checked() as _report:
            saxpy_kernel[_blocks, _tpb](_dtype(-1.5), _x, _y, _out)
        _got[_label] = Approx(_out, rtol=1e-6, atol=1e-6)
        if _report is not None:
            _got[_keys[1]] = Bound(_report.launches, 1, 1)
            _got[_keys[2]] = Approx(_report.written(3), rtol=1e-6, atol=1e-6)
    except Exception as _exc:  # noqa: BLE001 - recorded, compared by the grader
        for _key in _keys:  # every key says what went wrong
            _got[_key] = f"raised {type(_exc).__name__}: {str(_exc)[:200]}"
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. A block reduction in shared memory
#
# Summing an array is harder: every element feeds one result. The classic GPU
# answer works per block, in the block's *shared memory* (on the chip, visible
# to the block's threads only; "much faster than global memory", says the CUDA
# C++ Programming Guide, section Shared Memory):
#
# 1. each thread loads one element into `shared[t]` (0 past the end);
# 2. a tree: with `s` = half the block, threads `t < s` add `shared[t + s]`
#    into `shared[t]`; halve `s`; repeat until `s` is 0;
# 3. thread 0 writes `shared[0]`, the block's partial sum.
#
# Then the host adds the partial sums (`reduce_sum` launches the kernel once;
# open exercise 1 does the rest on the device).
#
# Between steps, every thread must wait until the others have written:
# `cuda.syncthreads()` is that barrier. Forget one and a thread may read a
# neighbour's element before the neighbour wrote it. On a GPU, and in a plain
# simulator run, that wrong sum comes *sometimes*, depending on timing (the CUDA
# C++ Programming Guide, "Synchronization Functions": without the barrier,
# reads and writes of shared memory race).
# `race_check` records which thread wrote and read each element between two
# barriers, so it fails such a kernel on every run. It also fails a barrier
# that only some threads reach (an early `return`): on a real GPU that "is
# likely to hang or produce unintended side effects" (CUDA C++ Programming
# Guide, section Synchronization Functions).
#
# ### Task 9.3 - `block_sum_kernel` and `reduce_sum`

# %% nbgrader={"grade_id": "09-reduce", "solution": true}
THREADS = 32  # threads per block of the reduction: a power of two


@cuda.jit
def block_sum_kernel(x, partial):
    """partial[b] = the sum of the elements block b covers (THREADS of them)."""
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    ### BEGIN SOLUTION
    shared[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    s = THREADS // 2
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]
    ### END SOLUTION


def reduce_sum(x):
    """The sum of a 1-D float64 array x: one launch of block_sum_kernel with
    THREADS threads per block, then the partial sums added on the host."""
    ### BEGIN SOLUTION
    blocks, threads = launch_config(len(x), THREADS)
    partial = np.zeros(blocks, dtype=np.float64)
    block_sum_kernel[blocks, threads](x, partial)
    return float(partial.sum())
    ### END SOLUTION


with checked():
    print(reduce_sum(np.arange(100, dtype=np.float64)), "(expected 4950)")

# %% nbgrader={"grade": true, "grade_id": "09-reduce-test", "points": 1}
"""reduce_sum is right on 1, 32 and 70 elements, one launch, no race."""
for _n in (1, 32, 70):
    _x = np.arange(1, _n + 1, dtype=np.float64)
    with checked() as _report:
        _got = reduce_sum(_x)
    check_close(_got, _n * (_n + 1) / 2, rtol=1e-12, name=f"reduce_sum of 1..{_n}")
    if _report is not None:
        check_equal(_report.launches, 1, "kernel launches in reduce_sum")
        check_that(_report.barriers > 0,
                   "block_sum_kernel never called cuda.syncthreads(): the task is a "
                   "tree reduction in shared memory, with a barrier between its steps")
        check_close(np.nansum(_report.written(1)), _n * (_n + 1) / 2, rtol=1e-12,
                    name=f"the partial sums block_sum_kernel wrote, added (1..{_n}): "
                         "the kernel must write them, the host only adds them")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "09-reduce-hidden-test", "points": 2}
"""reduce_sum matches the reference, race-free on every run (hidden)."""
check_close(reduce_sum(np.ones(3)), 3.0, name="reduce_sum(ones(3))")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, submit

_rng = np.random.default_rng(91)
_got = {}
for _n in (1, 31, 33, 96, 130):
    _x = _rng.normal(size=_n)
    for _repeat in range(2):
        _label = f"reduce_sum n={_n}, run {_repeat + 1}"
        _keys = [_label, f"{_label}: launches", f"{_label}: uses barriers",
                 f"{_label}: the partial sums the kernel wrote, added"]
        try:
            with checked() as _report:
                _value = reduce_sum(_x)
            _got[_keys[0]] = Approx(float(_value), rtol=1e-9, atol=1e-12)
            if _report is not None:
                _got[_keys[1]] = Bound(_report.launches, 1, 1)
                _got[_keys[2]] = _report.barriers > 0
                _got[_keys[3]] = Approx(float(np.nansum(_report.written(1))),
                                        rtol=1e-9, atol=1e-12)
        except Exception as _exc:  # noqa: BLE001 - recorded, compared by the grader
            for _key in _keys:  # every key says what went wrong
                _got[_key] = f"raised {type(_exc).__name__}: {str(_exc)[:200]}"
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# See the checker at work on a kernel that forgot the barrier after loading:

# %%
@cuda.jit
def forgot_a_barrier(x, partial):
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = x[i] if i < x.shape[0] else 0.0
    s = THREADS // 2  # no cuda.syncthreads() before the tree
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]


if numba_config.ENABLE_CUDASIM:
    try:
        with race_check():
            forgot_a_barrier[1, THREADS](np.ones(THREADS), np.zeros(1))
    except (KernelRaceError, DivergentBarrierError) as exc:
        print(f"{type(exc).__name__}: {exc}")

# %% [markdown]
# ### The copies numba makes for you: device arrays
#
# You have passed NumPy arrays to every kernel so far. On a GPU, numba copies each
# one to the device before the launch and back after it: it cannot know which
# arguments the kernel wrote, so it copies them all back (numba-cuda's
# documentation, "Data transfer"; it also warns "Host array used in CUDA kernel
# will incur copy overhead to/from device."). Keep the arrays on the device
# with `cuda.to_device` and copy back only what you need.
#
# `course.cudasim.simulated_gpu()` runs the kernels launched inside it on the
# course's simulated GPU, where grading runs a test's kernels, and a
# `TransferCounter` counts every copy. Ten launches of your `saxpy_kernel`:

# %%
from course.cudasim import simulated_gpu
from course.transfers import TransferCounter

if numba_config.ENABLE_CUDASIM:
    x_h = np.linspace(0, 1, 1000, dtype=np.float32)
    y_h, out_h = np.ones_like(x_h), np.zeros_like(x_h)
    with simulated_gpu(), TransferCounter() as host_copies:
        for _ in range(10):
            saxpy_kernel[4, 64](np.float32(2.0), x_h, y_h, out_h)
    with simulated_gpu(), TransferCounter() as device_copies:
        x_d, y_d = cuda.to_device(x_h), cuda.to_device(y_h)
        out_d = cuda.device_array(1000, dtype=np.float32)  # the kernel writes it all
        for _ in range(10):
            saxpy_kernel[4, 64](np.float32(2.0), x_d, y_d, out_d)
        out_last = out_d.copy_to_host()
    np.testing.assert_allclose(out_last, out_h)
    for label, copies in (("NumPy arguments", host_copies),
                          ("device arrays", device_copies)):
        sizes = {kind: sum(e.nbytes for e in copies.events if e.direction == kind)
                 for kind in ("upload", "download")}
        print(f"{label:>16}: {copies.uploads} copies up ({sizes['upload']:,} "
              f"bytes), {copies.downloads} back ({sizes['download']:,} bytes)")
else:
    print("On a GPU, see the copies with Nsight Systems (nsys profile) or "
          "torch.profiler: each is a memcpy in the trace.")

# %% [markdown]
# Launched on NumPy arrays, each of the ten launches copied all three arrays up
# and back (the number `a` is passed by value): 30 copies each way, counted
# above. With the arrays on the device, the inputs went up once and the result
# came back once. `cuda.device_array` is not zeroed on a GPU (the course's
# simulated GPU fills floats with NaN), so use it only for what the kernel
# writes in full. In grading, a test's launches are counted the same way.

# %% [markdown]
# ## 4. One fused kernel for Day 06's gradient step
#
# Day 06's gradient of the MSE, for `X` (n, d), `w` (d,) and a number `b`:
#
# ```python
# error = X @ w + b - y                  # (n,)
# dw = (2.0 / n) * (X.T @ error)         # (d,)
# db = 2.0 * error.mean()
# ```
#
# In NumPy, CuPy or PyTorch each operation is its own kernel, and each writes
# its result (a *temporary*) to memory for the next to read. One kernel can do
# it all: each thread takes rows (grid-stride), computes the row's error in a
# register, and adds its share into `dw` and `db`. Many threads add into the
# same `dw[j]`, so they use `cuda.atomic.add`, which makes each addition whole.
#
# ### Task 9.4 - `fused_gradient_kernel` and `fused_gradient`
#
# Your result must match Day 06's NumPy gradient to `rtol=1e-9` (float64:
# atomics add in an order that changes from run to run, so the last digits can
# differ). And only the result may come home: put `X`, `y` and `w` on the device
# with `cuda.to_device` before the launch, so that numba does not copy them back
# after it; the tests count the copies on the simulated GPU and allow two back
# (`dw` and `db`). The outputs start at zero (the kernel adds into them): either
# `cuda.to_device(np.zeros(...))` read back with `copy_to_host()`, or NumPy zeros
# that numba copies up and back for you.

# %%
def numpy_gradient(X, y, w, b):
    """Day 06's gradient (the reference you compare with)."""
    error = X @ w + b - y
    return (2.0 / X.shape[0]) * (X.T @ error), 2.0 * error.mean()


# %% nbgrader={"grade_id": "09-fused", "solution": true}
@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    """Add every row's share of the MSE gradient into dw (d,) and db (1,)."""
    ### BEGIN SOLUTION
    n, d = X.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        error = b - y[i]
        for j in range(d):
            error += X[i, j] * w[j]
        scale = 2.0 * error / n
        for j in range(d):
            cuda.atomic.add(dw, j, scale * X[i, j])
        cuda.atomic.add(db, 0, scale)
    ### END SOLUTION


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    """(dw, db) of the MSE with ONE launch of fused_gradient_kernel.

    X is (n, d) float64, y (n,), w (d,), b a number, all on the host. Returns
    dw as a (d,) float64 NumPy array and db as a Python float; only dw and db
    are copied back to the host.
    """
    ### BEGIN SOLUTION
    X_d, y_d, w_d = cuda.to_device(X), cuda.to_device(y), cuda.to_device(w)
    dw = cuda.to_device(np.zeros(X.shape[1], dtype=np.float64))
    db = cuda.to_device(np.zeros(1, dtype=np.float64))
    fused_gradient_kernel[blocks, threads_per_block](X_d, y_d, w_d, float(b), dw, db)
    return dw.copy_to_host(), float(db.copy_to_host()[0])
    ### END SOLUTION


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
with checked():
    print(fused_gradient(X_small, y_small, w_small, b_small))
print(numpy_gradient(X_small, y_small, w_small, b_small))

# %% nbgrader={"grade": true, "grade_id": "09-fused-test", "points": 1}
"""fused_gradient matches Day 06's gradient, with one launch and no race."""
with checked() as _report:
    _dw, _db = fused_gradient(X_small, y_small, w_small, b_small)
_want_dw, _want_db = numpy_gradient(X_small, y_small, w_small, b_small)
check_equal(tuple(np.shape(_dw)), (3,), "dw.shape")
check_close(_dw, _want_dw, rtol=1e-9, atol=1e-12, name="dw")
check_close(_db, _want_db, rtol=1e-9, atol=1e-12, name="db")
if _report is not None:
    check_equal(_report.launches, 1, "kernel launches in fused_gradient")
    check_close(_report.written(4), _want_dw, rtol=1e-9, atol=1e-12,
                name="dw as the kernel in fused_gradient wrote it (the kernel adds "
                     "each row's share; the host only reads it back)")
if numba_config.ENABLE_CUDASIM:  # copies counted on the simulated GPU
    with simulated_gpu(), TransferCounter() as _copies:
        fused_gradient(X_small, y_small, w_small, b_small)
    check_that(_copies.downloads <= 2,
               "fused_gradient copied {count} arrays back to the host; only dw and "
               "db should come back. Pass X, y and w to the kernel as device arrays "
               "(cuda.to_device): numba copies every NumPy argument back after the "
               "launch.", count=_copies.downloads)
_dw_kernel, _db_kernel = np.zeros(3), np.zeros(1)  # the kernel alone, launched here
with checked() as _kernel:
    fused_gradient_kernel[2, 32](X_small, y_small, w_small, float(b_small),
                                 _dw_kernel, _db_kernel)
if _kernel is not None:  # what the kernel itself wrote (NaN: not written)
    _dw_kernel, _db_kernel = _kernel.written(4), _kernel.written(5)
check_close(_dw_kernel, _want_dw, rtol=1e-9, atol=1e-12,
            name="dw as fused_gradient_kernel leaves it")
check_close(_db_kernel[0], _want_db, rtol=1e-9, atol=1e-12,
            name="db as fused_gradient_kernel leaves it (the kernel adds each row's "
                 "share into db on the device; the host only reads it back)")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "09-fused-hidden-test", "points": 2}
"""fused_gradient matches the reference on several shapes and grids (hidden)."""
check_equal(len(fused_gradient(X_small, y_small, w_small, b_small)), 2, "(dw, db)")
### BEGIN HIDDEN TESTS
from course.results import Approx, Bound, submit

_rng = np.random.default_rng(92)
_got = {}
for _n, _d, _blocks, _tpb in ((1, 1, 1, 8), (50, 4, 2, 32), (130, 2, 3, 16),
                              (20, 7, 4, 4)):
    _X, _y = _rng.normal(size=(_n, _d)), _rng.normal(3.0, 2.0, size=_n)
    _w, _b = _rng.normal(size=_d), float(_rng.normal())
    _label = f"fused_gradient n={_n}, d={_d}, grid {_blocks}x{_tpb}"
    _keys = [f"{_label}: dw", f"{_label}: db", f"{_label}: launches",
             f"{_label}: db written by the kernel",
             f"{_label}: arrays copied back to the host",
             f"{_label}: dw and db as the launch in fused_gradient wrote them"]
    try:
        with checked() as _report:
            _dw, _db = fused_gradient(_X, _y, _w, _b, _blocks, _tpb)
        _got[_keys[0]] = Approx(np.asarray(_dw), rtol=1e-9, atol=1e-12)
        _got[_keys[1]] = Approx(float(_db), rtol=1e-9, atol=1e-12)
        if _report is not None:
            _got[_keys[2]] = Bound(_report.launches, 1, 1)
            _got[_keys[5]] = Approx([_report.written(4), _report.written(5)],
                                    rtol=1e-9, atol=1e-12)
        if numba_config.ENABLE_CUDASIM:  # copies counted on the simulated GPU
            with simulated_gpu(), TransferCounter() as _copies:
                fused_gradient(_X, _y, _w, _b, _blocks, _tpb)
            _got[_keys[4]] = Bound(_copies.downloads, high=2)
        _out_dw, _out_db = np.zeros(_d), np.zeros(1)
        with checked() as _kernel:
            fused_gradient_kernel[_blocks, _tpb](_X, _y, _w, _b, _out_dw, _out_db)
        if _kernel is not None:  # what the kernel itself wrote
            _out_db = _kernel.written(5)
        _got[_keys[3]] = Approx(float(_out_db[0]), rtol=1e-9, atol=1e-12)
    except Exception as _exc:  # noqa: BLE001 - recorded, compared by the grader
        for _key in _keys:  # every key says what went wrong
            _got[_key] = f"raised {type(_exc).__name__}: {str(_exc)[:200]}"
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Launches and temporaries: the chain against one kernel
#
# Count what each version asks of a GPU. `course.gpumodel.trace` records the
# operations the array chain launches (traced here with PyTorch on the CPU; CuPy
# launches one kernel per operation in the same way). Each operation's output
# that is not a final result is a temporary: written to device memory by one
# kernel, read back by the next.

# %%
N_ROWS, N_FEATURES = 100_000, 5
Xt = torch.randn(N_ROWS, N_FEATURES, dtype=torch.float64)
yt, wt = torch.randn(N_ROWS, dtype=torch.float64), torch.randn(N_FEATURES,
                                                              dtype=torch.float64)
chain = gpumodel.trace(lambda: numpy_gradient(Xt, yt, wt, 0.5))
temporaries = chain.launches - 2  # every output but dw and db
print(f"array chain: {chain.launches} launches {chain.by_op()}, "
      f"{temporaries} temporaries")

fused = gpumodel.Trace()  # CuPy zeroes dw and db; your numba kernel does the rest
fused.op("zero dw", 0, N_FEATURES * 8, torch.float64)
fused.op("zero db", 0, 8, torch.float64)
fused.op("fused gradient", 4 * N_ROWS * N_FEATURES,
         (N_ROWS * N_FEATURES + N_ROWS + 2 * N_FEATURES) * 8, torch.float64,
         library="numba")
print(f"fused kernel: {fused.launches} launches (2 of them zero dw and db), "
      "0 temporaries")

fig, ax = plt.subplots(figsize=(5.2, 3.6), layout="constrained")
counts = {"launches": (chain.launches, fused.launches),
          "temporaries": (temporaries, 0)}
for i, (in_chain, in_fused) in enumerate(counts.values()):
    ax.bar(i - 0.2, in_chain, 0.4, color="C0",
           label="array chain" if i == 0 else None)
    ax.bar(i + 0.2, in_fused, 0.4, color="C1",
           label="one fused kernel" if i == 0 else None)
ax.set_xticks(range(len(counts)), list(counts))
ax.set_ylabel("count per gradient step")
ax.set_title(f"Asked of the GPU: Day 06's gradient, {N_ROWS:,} x {N_FEATURES}")
ax.legend(fontsize="small")
show("09_chain_vs_fused")

# %% [markdown]
# What the counts support, and what they do not:
#
# - The chain launches 7 kernels and writes 5 temporaries to device memory for
#   the next kernel to read back: three the size of `error` (`n` numbers: `X @ w`,
#   `+ b`, `- y`), one the size of `dw`, one a single number (the mean). The
#   fused kernel reads `X` and `y` once and keeps each row's error in a register.
# - So "fewer launches and fewer temporaries" is **one likely reason** a plain
#   hand-written CUDA program could beat a CuPy one on a small model. It is our
#   inference from these counts, not the article's finding: the article gives no
#   numbers for that comparison, and its learner did not investigate.

# %% [markdown]
# ## 6. The same ideas in CuPy (shown, not graded: needs a GPU)
#
# CuPy offers three ways to write your own kernel without leaving Python:
#
# - `cupy.ElementwiseKernel`: the body of a per-element loop, in CUDA C;
# - `cupy.RawKernel`: a whole CUDA C kernel, launched like numba's;
# - `cupy.fuse`: a Python function of array expressions, compiled into one
#   kernel.
#
# The cell below runs them on a GPU and times them with CuPy's own timer. On
# this machine it says what it would do instead. No recorded GPU result exists
# for it yet; the modelled figures above are the ones to read.

# %%
if cupy_usable():  # CuPy compiles its own kernels, with or without numba
    import cupy as cp
    from cupyx.profiler import benchmark as cupy_benchmark

    saxpy_ew = cp.ElementwiseKernel("T a, T x, T y", "T out", "out = a * x + y",
                                    "saxpy_ew")
    saxpy_raw = cp.RawKernel(r"""
    extern "C" __global__ void saxpy_raw(float a, const float* x, const float* y,
                                         float* out, int n) {
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += blockDim.x * gridDim.x) out[i] = a * x[i] + y[i];
    }""", "saxpy_raw")

    @cp.fuse()
    def saxpy_fused(a, x, y):
        return a * x + y

    n = 1 << 24
    xg = cp.random.random(n, dtype=cp.float32)
    yg = cp.random.random(n, dtype=cp.float32)
    outg = cp.empty_like(xg)
    a32 = cp.float32(2.0)
    ways = {
        "a * x + y (2 kernels)": lambda: a32 * xg + yg,
        "ElementwiseKernel": lambda: saxpy_ew(a32, xg, yg),
        "RawKernel": lambda: saxpy_raw((1024,), (256,),
                                       (np.float32(2.0), xg, yg, outg, np.int32(n))),
        "cupy.fuse": lambda: saxpy_fused(a32, xg, yg),
    }
    for name, fn in ways.items():
        result = cupy_benchmark(fn, n_repeat=50, n_warmup=5)
        print(f"{name:>22}: {float(np.median(result.gpu_times)) * 1e6:8.1f} µs "
              f"on the GPU, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
else:
    print("No GPU with CuPy here: the CuPy kernels are shown, not run.")

# %% [markdown]
# ## Summary
#
# - A launch is `kernel[blocks, threads](args)`; `cuda.grid(1)` is a thread's
#   index; the grid rounds up, so every kernel guards its index.
# - A grid-stride loop lets one kernel handle any size with any grid.
# - Shared memory and `cuda.syncthreads()` let a block cooperate; a missing
#   barrier is a race that shows up only sometimes, so check it with a tool that
#   records accesses instead of trusting one lucky run.
# - NumPy arguments are copied to the device and back at every launch; arrays
#   made with `cuda.to_device` stay there until you copy them back.
# - One fused kernel replaces a chain of launches and temporaries: a likely
#   reason hand-written kernels can beat library calls on small problems.
#
# **Open exercises.**
#
# 1. Make `reduce_sum` run entirely on the device: launch `block_sum_kernel`
#    again on the partial sums until one number is left. How many launches?
# 2. Rewrite `fused_gradient_kernel` to reduce `dw` in shared memory first and
#    issue one atomic per block and feature. Check it with `race_check`.
# 3. On a GPU (Colab's T4 will do), time `fused_gradient` against
#    `numpy_gradient` on CuPy arrays for n = 10^3, 10^5 and 10^7.

# %% [markdown]
# ## Going further: the chain and the fused kernel, modelled
#
# No GPU has measured these two versions yet. The course's cost model (Day 03)
# turns the counts above into times on named GPUs. **Modelled, not measured**: the
# first lines printed say how far the model is from recorded runs for each kind
# of work, and that no recorded run checks numba kernels.

# %% tags=["skip-grading"]
print(gpumodel.accuracy_for("cupy loop"))  # the chain
print(gpumodel.accuracy_for("numba kernel"))  # the fused kernel
costs = gpumodel.CONSTANTS
print(f"host cost per CuPy kernel: {costs['cupy_us'][0]:.1f} µs "
      f"({costs['cupy_us'][2]}); per numba launch: {costs['numba_us'][0]:.1f} µs "
      f"({costs['numba_us'][2]})")
rows = []
for spec in gpumodel.GPUS.values():
    a = gpumodel.estimate(chain.as_library("cupy"), spec)
    f = gpumodel.estimate(fused, spec)
    rows.append((spec.name, a, f))
    print(f"  {spec.name:>48}: chain {a.seconds * 1e6:7.1f} µs, fused "
          f"{f.seconds * 1e6:7.1f} µs (modelled, not measured)")

# Where the modelled time goes: the GPU computing (dark) and the rest,
# launching and waiting (light).
fig, right = plt.subplots(figsize=(7.4, 3.8), layout="constrained")
positions = np.arange(len(rows))
for offset, which, color in ((-0.2, 1, "C0"), (0.2, 2, "C1")):
    busy = np.array([r[which].device_busy_seconds * 1e6 for r in rows])
    total = np.array([r[which].seconds * 1e6 for r in rows])
    right.bar(positions + offset, busy, 0.4, color=color)
    right.bar(positions + offset, total - busy, 0.4, bottom=busy, color=color,
              alpha=0.35)
names = [r[0].split(" (")[0].replace("NVIDIA ", "") for r in rows]
right.set_xticks(positions, [textwrap.fill(name, 12) for name in names])
right.set_ylabel("µs per gradient step (modelled)")
right.set_title("Modelled: GPU computing (dark), launching and waiting (light)")
fig.suptitle(f"Day 06's gradient, {N_ROWS:,} x {N_FEATURES}, float64 (modelled, "
             "not measured)")
show("09_chain_vs_fused_modelled", alt="Modelled microseconds per gradient "
     "step, split into GPU computing and the rest, array chain against one "
     "fused kernel: " + "; ".join(
         f"{name.split(' (')[0].replace('NVIDIA ', '')} {a.seconds * 1e6:.1f} "
         f"({a.device_busy_seconds * 1e6:.1f} computing) against "
         f"{f.seconds * 1e6:.1f} ({f.device_busy_seconds * 1e6:.1f})"
         for name, a, f in rows) + ".")

# %% [markdown]
# What the model charges, and what it leaves out:
#
# - The model (labelled modelled: no GPU measured these) charges each CuPy
#   kernel the host cost measured per CuPy kernel on the recorded H200 run. No
#   run has recorded a numba launch yet: the model assumes it costs the same
#   (printed above), and `make gpu-check` now records it. It charges nothing for
#   the atomics. On a GPU, atomic updates to one address are carried out one at
#   a time (CUDA C++ Programming Guide, "Atomic Functions"), and here every
#   thread adds into the same few numbers; we have no measurement of what that
#   costs. A tuned kernel would first reduce in shared memory, as in Task 9.3,
#   then issue one atomic per block and feature.
# - The chart (modelled) shows where the difference comes from on
#   each GPU: the chain's modelled time is mostly the host launching its seven
#   kernels, which one kernel cuts; on the laptop GPU and the T4, whose float64
#   arithmetic is slow, computing takes a larger share of what is left.
