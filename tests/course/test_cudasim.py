"""course.cudasim: the target choice and the deterministic race checker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if "numba.cuda" not in sys.modules:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba.cuda is imported
cuda = pytest.importorskip("numba.cuda")
numba = pytest.importorskip("numba")
numba_config = numba.config
if not numba_config.ENABLE_CUDASIM:
    pytest.skip(
        "numba.cuda was imported without the simulator", allow_module_level=True
    )

from course.cudasim import (  # noqa: E402
    DivergentBarrierError,
    KernelRaceError,
    choose_target,
    race_check,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
TPB = 16


@cuda.jit
def _block_sum(x, out, sync_after_load, sync_in_loop):
    sm = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i] if i < x.shape[0] else 0.0
    if sync_after_load:
        cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        if sync_in_loop:
            cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, sm[0])


@cuda.jit
def _plain_add(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[0] += x[i]  # many threads, one element, no atomic


@cuda.jit
def _early_return(x, out):
    sm = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    sm[t] = x[i]
    cuda.syncthreads()
    out[i] = sm[t]


@cuda.jit
def _negative_index(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i - 1]


@cuda.jit
def _no_guard(x, out):
    i = cuda.grid(1)
    out[i] = 2 * x[i]


@cuda.jit
def _own_elements(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + 1
        out[i] = out[i] * 2  # the same thread, again: no race


def test_a_correct_reduction_passes_and_is_counted():
    x = np.arange(40, dtype=np.float64)
    out = np.zeros(1)
    with race_check() as report:
        _block_sum[3, TPB](x, out, True, True)
    assert out[0] == pytest.approx(780.0)
    assert report.launches == 1 and report.blocks == 3
    assert report.accesses > 0 and report.barriers == 3 * TPB * 5


@pytest.mark.parametrize("after_load, in_loop", [(False, True), (True, False)])
def test_a_missing_barrier_fails_on_every_run(after_load, in_loop):
    x = np.ones(TPB, dtype=np.float64)
    for _ in range(5):  # not by luck: every run
        with pytest.raises(KernelRaceError, match="syncthreads"), race_check():
            _block_sum[1, TPB](x, np.zeros(1), after_load, in_loop)


def test_without_the_checker_the_same_kernel_may_well_pass():
    # The reason the checker exists: the simulator alone raises nothing and
    # writes a value read from uninitialised shared memory (garbage, NaN at
    # times: it was NaN in one fresh-clone run, so no finiteness is asserted).
    out = np.full(1, -1.0)
    _block_sum[1, TPB](np.ones(TPB), out, False, True)
    assert out.dtype == np.float64 and out.shape == (1,)


def test_non_atomic_updates_from_many_threads_are_a_race():
    with pytest.raises(KernelRaceError, match="cuda.atomic.add"), race_check():
        _plain_add[2, 8](np.ones(16), np.zeros(1))


def test_a_barrier_only_some_threads_reach_fails():
    with pytest.raises(DivergentBarrierError, match="only some threads"), race_check():
        _early_return[2, TPB](np.ones(20), np.zeros(20))


def test_out_of_bounds_fails_and_negative_indices_wrap_as_in_numba():
    with pytest.raises(IndexError, match="out of bounds"), race_check():
        _no_guard[2, 8](np.ones(10), np.zeros(10))
    out = np.zeros(8)
    with race_check():
        _negative_index[1, 8](np.arange(8.0), out)
    np.testing.assert_array_equal(out, np.roll(np.arange(8.0), 1))


@cuda.jit
def _zero_then_atomics(out):
    if cuda.grid(1) == 0:
        out[0] = 0.0  # a plain write...
    cuda.atomic.add(out, 0, 1.0)  # ...then everyone, thread 0 too, adds


@cuda.jit
def _transpose(x, out):
    tile = cuda.shared.array((4, 4), numba.float64)  # a numba dtype
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile[ty][tx] = x[ty, tx]  # a row, then an element
    cuda.syncthreads()
    out[tx, ty] = tile[ty][tx]


@cuda.jit
def _row_write(out):
    row = out[0]
    row[0] = cuda.grid(1)  # every thread, one element, through a row


def test_a_plain_write_is_not_forgotten_once_the_thread_uses_atomics():
    for _ in range(3):
        with pytest.raises(KernelRaceError, match="array argument 1"), race_check():
            _zero_then_atomics[2, 4](np.full(1, 123.0))


def test_rows_of_shared_and_global_arrays_are_tracked_per_element():
    x = np.arange(16.0).reshape(4, 4)
    out = np.zeros((4, 4))
    with race_check():
        _transpose[1, (4, 4)](x, out)
    np.testing.assert_array_equal(out, x.T)
    with pytest.raises(KernelRaceError, match=r"\[\(0, 0\)\]"), race_check():
        _row_write[1, 4](np.zeros((2, 2)))


def test_a_thread_may_reuse_its_own_elements():
    out = np.zeros(10)
    with race_check():
        _own_elements[2, 8](np.arange(10.0), out)
    np.testing.assert_array_equal(out, (np.arange(10.0) + 1) * 2)


def test_the_checker_leaves_the_simulator_as_it_found_it():
    from numba.cuda.simulator import kernel, kernelapi

    before = (kernelapi.FakeCUDAShared, kernel.BlockManager.run)
    with pytest.raises(KernelRaceError), race_check():
        _plain_add[2, 8](np.ones(16), np.zeros(1))
    assert (kernelapi.FakeCUDAShared, kernel.BlockManager.run) == before


def test_choose_target_after_import_reports_the_simulator():
    assert choose_target() == "simulator"


def test_choose_target_picks_the_simulator_without_a_gpu():
    code = (
        "import os; from course.cudasim import choose_target; "
        "print(choose_target(), os.environ.get('NUMBA_ENABLE_CUDASIM'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["COURSE_FORCE_CPU"] = "1"
    ran = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert ran.stdout.split() == ["simulator", "1"], ran.stderr


@cuda.jit
def _no_padding(x, out):
    sm = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.shape[0]:
        sm[t] = x[i]  # the tail of the last block is never written
    cuda.syncthreads()
    if t == 0:
        total = 0.0
        for k in range(TPB):
            total += sm[k]
        cuda.atomic.add(out, 0, total)


def test_reading_shared_memory_nobody_wrote_fails():
    with race_check():
        _no_padding[1, TPB](np.ones(TPB), np.zeros(1))  # full block: fine
    with pytest.raises(KernelRaceError, match="before any thread"), race_check():
        _no_padding[2, TPB](np.ones(TPB + 3), np.zeros(1))


def test_a_gpu_numba_cannot_compile_for_falls_back_to_the_simulator(monkeypatch):
    import course.cudasim as cudasim

    monkeypatch.setattr(cudasim, "_cuda_usable", lambda: True)
    monkeypatch.setattr(cudasim, "_numba_gpu_works", lambda: (False, "no libNVVM"))
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    monkeypatch.delitem(sys.modules, "numba.cuda")
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(cudasim, "FALLBACK_REASON", "")
    assert cudasim.choose_target() == "simulator"
    assert os.environ["NUMBA_ENABLE_CUDASIM"] == "1"
    assert "no libNVVM" in cudasim.describe_target("simulator")
    assert "numba-cuda[cu12]" in cudasim.describe_target("simulator")


def test_a_numba_cuda_newer_numpy_broke_is_named_with_its_fix(monkeypatch):
    # seen on an H200: numba-cuda 0.30 imports numpy.row_stack, gone in NumPy 2.5
    import course.cudasim as cudasim

    why = "AttributeError: module 'numpy' has no attribute 'row_stack'"
    monkeypatch.setattr(cudasim, "_cuda_usable", lambda: True)
    monkeypatch.setattr(cudasim, "_numba_gpu_works", lambda: (False, why))
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    monkeypatch.delitem(sys.modules, "numba.cuda")
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(cudasim, "FALLBACK_REASON", "")
    assert cudasim.choose_target() == "simulator"
    said = cudasim.describe_target("simulator")
    assert f"NumPy {np.__version__}" in said and "pip install 'numpy<2.5'" in said


@cuda.jit
def _count_and_raise(x, out, bad):
    t = cuda.threadIdx.x
    if t == bad:
        out[t] = x[t + 1000]  # out of bounds, while the others wait at the barrier
    out[t] = cuda.syncthreads_count(x[t] > 0)


def test_barriers_open_for_every_thread_and_count_them():
    # course.simblocks runs checked blocks on events, not numba's polling loop:
    # every barrier still opens once all running threads reach it.
    x = np.array([1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0])
    out = np.zeros(8)
    with race_check() as report:
        _count_and_raise[1, 8](x, out, -1)
    np.testing.assert_array_equal(out, np.full(8, 4.0))
    assert report.barriers == 2 * 8  # syncthreads_count waits twice


def test_a_thread_that_raises_ends_the_launch_without_a_hang():
    with pytest.raises(IndexError, match="tid=\\[3"), race_check():
        _count_and_raise[1, 8](np.ones(8), np.zeros(8), 3)
    # The block's other threads were let go: a later launch runs normally.
    out = np.zeros(8)
    with race_check():
        _count_and_raise[1, 8](np.ones(8), out, -1)
    np.testing.assert_array_equal(out, np.full(8, 8.0))
