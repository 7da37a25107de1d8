"""Write CUDA kernels with numba-cuda anywhere, and check them for races.

Two things live here:

* :func:`choose_target` picks where ``@cuda.jit`` kernels run *before*
  ``numba.cuda`` is imported: a real GPU when a usable CUDA device exists, else
  numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), which runs the same
  kernel source on the CPU, one Python thread per CUDA thread. The grader always
  sets the simulator: it reports out-of-bounds indexing with the thread and
  block, where a GPU reports nothing or breaks its context.
* :func:`race_check` makes the simulator *deterministic about races*. Plain
  simulator runs sometimes give the right sum from a reduction that forgot a
  ``cuda.syncthreads()``: the threads happen to run in a lucky order. Inside
  ``race_check`` every access to shared memory and to the kernel's array
  arguments is recorded with the thread that made it and the barrier interval
  it fell in, and a conflict fails the launch whatever the order:

  - **shared memory**: a thread reads or writes an element that another thread
    of the same block wrote (or read, for a write) since the last
    ``syncthreads`` both passed;
  - **global memory** (the arrays passed to the kernel): two threads touch the
    same element and one of them writes, unless both are atomics, or both are in
    one block with a ``syncthreads`` between (blocks are never ordered);
  - **divergent barriers**: a ``syncthreads`` that only some threads of a block
    reach (an early ``return`` before a barrier), which hangs on a GPU;
  - **uninitialised shared memory**: a read of a shared element no thread of
    the block has written (a GPU gives whatever was there);
  - **negative indices**: NumPy would wrap ``a[-1]`` round to the end, a GPU
    reads memory before the array.

  Atomics (``cuda.atomic.add`` and the rest) never conflict with each other.

What the simulator cannot show is speed: it is thousands of times slower than
a GPU and says nothing about one. Keep checked launches small (a few blocks of
at most 64 threads): one OS thread per CUDA thread, and every access recorded.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from course.env import force_cpu

SIMULATOR_ENV = "NUMBA_ENABLE_CUDASIM"


class KernelRaceError(RuntimeError):
    """Two threads touched the same element without the ordering CUDA needs."""


class DivergentBarrierError(RuntimeError):
    """A ``cuda.syncthreads()`` was reached by only some threads of a block."""


def simulator_requested() -> bool:
    """Whether ``NUMBA_ENABLE_CUDASIM`` asks for the simulator."""
    return os.environ.get(SIMULATOR_ENV, "0").strip() not in ("", "0")


def _cuda_usable() -> bool:
    if force_cpu():
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - any failure means no usable device
        return False


def choose_target() -> str:
    """Decide where kernels run: ``"gpu"`` or ``"simulator"``; say it once.

    Call it before ``from numba import cuda``. Without a usable CUDA device (or
    with ``COURSE_FORCE_CPU``) it sets ``NUMBA_ENABLE_CUDASIM=1``. Once
    ``numba.cuda`` is imported the choice is fixed for the process, so then it
    only reports what was chosen.
    """
    if "numba.cuda" in sys.modules:
        from numba import config

        target = "simulator" if config.ENABLE_CUDASIM else "gpu"
    elif simulator_requested() or not _cuda_usable():
        os.environ[SIMULATOR_ENV] = "1"
        target = "simulator"
    else:
        target = "gpu"
    return target


def describe_target(target: str) -> str:
    """One sentence for the lesson's setup cell."""
    if target == "gpu":
        return (
            "Kernels compile to PTX and run on this machine's GPU. Checked "
            "launches (race_check) and grading still use the simulator."
        )
    return (
        "No usable CUDA device here (or the simulator was asked for): kernels "
        "run in numba's CUDA simulator, on the CPU, one thread per CUDA thread. "
        "Correct and race-free there means correct on a GPU; it says nothing "
        "about speed."
    )


# --- the race checker -------------------------------------------------------

_local = threading.local()
_ALLOCATING = threading.Lock()


def _who() -> tuple[tuple[int, ...], tuple[int, ...], int] | None:
    """(block, thread, barrier interval) of the simulated thread running, if any."""
    t = threading.current_thread()
    block = getattr(t, "blockIdx", None)
    if block is None:
        return None
    return (
        tuple(block),
        tuple(t.threadIdx),
        getattr(t, "_course_barriers", 0),
    )


def _ids(block: tuple[int, ...], thread: tuple[int, ...]) -> str:
    def short(v: tuple[int, ...]) -> str:
        v = list(v)
        while len(v) > 1 and v[-1] == 0:
            v.pop()
        return str(v[0]) if len(v) == 1 else str(tuple(v))

    return f"thread {short(thread)} of block {short(block)}"


def _flat(shape: tuple[int, ...], key: Any) -> list[int] | None:
    """Flat element numbers that ``key`` selects (None: not an element index)."""
    if isinstance(key, (int, np.integer)):
        key = (key,)
    if isinstance(key, tuple) and all(isinstance(k, (int, np.integer)) for k in key):
        if len(key) == len(shape):
            for k, n in zip(key, shape):
                if k < 0:
                    raise IndexError(
                        f"negative index {int(k)}: NumPy wraps it round to the end, "
                        "a GPU reads memory before the array. Check the index "
                        "arithmetic (and the bounds guard)."
                    )
                if k >= n:
                    return None  # let the array raise its own IndexError
            return [int(np.ravel_multi_index(tuple(int(k) for k in key), shape))]
    if isinstance(key, str):
        return None
    try:
        return np.arange(int(np.prod(shape))).reshape(shape)[key].ravel().tolist()
    except Exception:  # noqa: BLE001 - the real access raises the right error
        return None


class _Tracker:
    """The accesses to one array during one launch, and the conflict rules."""

    def __init__(self, name: str, shared: bool, report: CheckReport) -> None:
        self.name = name
        self.shared = shared
        self.report = report
        # element -> {(block, thread): (interval, atomic)} for writes and reads
        self.writes: dict[int, dict] = {}
        self.reads: dict[int, dict] = {}
        self.lock = threading.Lock()

    def _conflict(self, other: dict, me: tuple, interval: int, atomic: bool) -> Any:
        for who, (their_interval, their_atomic) in other.items():
            if who == me:
                continue
            if atomic and their_atomic:
                continue
            if who[0] == me[0] and their_interval != interval:
                continue  # same block, a barrier between
            if self.shared and who[0] != me[0]:
                continue  # another block's shared memory is another array
            return who
        return None

    def access(self, key: Any, shape: tuple[int, ...], write: bool) -> None:
        where = _who()
        if where is None:
            return
        block, thread, interval = where
        elements = _flat(shape, key)
        if not elements:
            return
        me = (block, thread)
        atomic = bool(getattr(_local, "atomic", False))
        with self.lock:
            self.report.accesses += len(elements)
            for e in elements:
                writes = self.writes.setdefault(e, {})
                if (
                    self.shared
                    and not write
                    and not any(who[0] == block for who in writes)
                ):
                    self._unset(e, shape, me)
                other = self._conflict(writes, me, interval, atomic)
                their = "write"
                if other is None and write:
                    other = self._conflict(self.reads.get(e, {}), me, interval, atomic)
                    their = "read"
                if other is not None:
                    self._fail(e, shape, me, other, "wrote" if write else "read", their)
                if write:
                    writes[me] = (interval, atomic)
                else:
                    self.reads.setdefault(e, {})[me] = (interval, atomic)

    @staticmethod
    def _index(e: int, shape: tuple[int, ...]) -> Any:
        index = np.unravel_index(e, shape)
        return int(index[0]) if len(index) == 1 else tuple(int(i) for i in index)

    def _unset(self, e, shape, me) -> None:
        raise KernelRaceError(
            f"{_ids(*me)} read {self.name}[{self._index(e, shape)}] before any "
            "thread of its block wrote it. Shared memory starts with whatever the "
            "last block left there: write every element you read (pad with 0 "
            "past the end of the data), then cuda.syncthreads()."
        )

    def _fail(self, e, shape, me, other, verb, their) -> None:
        index = self._index(e, shape)
        if self.shared:
            fix = (
                "Put a cuda.syncthreads() between the two accesses (every thread "
                "of the block must reach it)."
            )
        else:
            fix = (
                "Give each thread its own elements, or use cuda.atomic.add for "
                "an element many threads update."
            )
        raise KernelRaceError(
            f"race on {self.name}[{index}]: {_ids(*me)} {verb} it, and "
            f"{_ids(*other)} had a {their} of it with nothing ordering the two. "
            f"{fix}"
        )


@dataclass
class CheckReport:
    """What a :func:`race_check` block saw: launches, blocks, recorded accesses."""

    launches: int = 0
    blocks: int = 0
    accesses: int = 0
    barriers: int = 0


def _tracked_shared(base: type, report: CheckReport) -> type:
    class TrackedShared(base):  # type: ignore[misc, valid-type]
        def array(self, shape, dtype):  # noqa: D401 - numba's signature
            if shape == 0:  # dynamic shared memory: not tracked
                return super().array(shape, dtype)
            frame = sys._getframe(1)
            where = (frame.f_code.co_filename, frame.f_lineno)
            with _ALLOCATING:  # threads of a block allocate at the same time
                arrays = self.__dict__.setdefault("_course_tracked", {})
                if where not in arrays:
                    plain = np.zeros(shape, dtype)
                    name = f"shared array (line {frame.f_lineno})"
                    arrays[where] = _SharedArray(plain, _Tracker(name, True, report))
                return arrays[where]

    return TrackedShared


class _SharedArray:
    """A shared-memory array as kernels use it, with every access recorded."""

    def __init__(self, data: np.ndarray, tracker: _Tracker) -> None:
        self._data = data
        self._tracker = tracker

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    size = property(lambda self: self._data.size)
    ndim = property(lambda self: self._data.ndim)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, key: Any) -> Any:
        self._tracker.access(key, self._data.shape, write=False)
        return self._data[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._tracker.access(key, self._data.shape, write=True)
        self._data[key] = value


def _tracked_global(base: type, report: CheckReport) -> type:
    class TrackedArgument(base):  # type: ignore[misc, valid-type]
        def __init__(self, item: Any) -> None:
            super().__init__(item)
            n = report.__dict__.get("_arguments", 0) + 1
            report.__dict__["_arguments"] = n
            self.__dict__["_course_tracker"] = _Tracker(
                f"array argument {n}", False, report
            )

        def __getitem__(self, key: Any) -> Any:
            self.__dict__["_course_tracker"].access(key, self._item.shape, False)
            return super().__getitem__(key)

        def __setitem__(self, key: Any, value: Any) -> None:
            self.__dict__["_course_tracker"].access(key, self._item.shape, True)
            super().__setitem__(key, value)

    return TrackedArgument


def _atomic_class(base: type) -> type:
    methods = {}
    for name in dir(base):
        if name.startswith("_") or not callable(getattr(base, name)):
            continue

        def wrapped(self, *args, _name=name, **kwargs):
            _local.atomic = True
            try:
                return getattr(base, _name)(self, *args, **kwargs)
            finally:
                _local.atomic = False

        methods[name] = wrapped
    return type("CheckedAtomic", (base,), methods)


@contextlib.contextmanager
def race_check() -> Iterator[CheckReport]:
    """Check every simulated kernel launched inside for races (see the module).

    Raises :class:`KernelRaceError` or :class:`DivergentBarrierError` from the
    launch that broke a rule, and ``RuntimeError`` if kernels are not running in
    the simulator (call :func:`choose_target` first, or set
    ``NUMBA_ENABLE_CUDASIM=1`` before importing numba).

    Yields:
        A :class:`CheckReport` that counts launches, blocks and accesses.
    """
    from numba import config

    if not config.ENABLE_CUDASIM:
        raise RuntimeError(
            "race_check needs numba's CUDA simulator: set NUMBA_ENABLE_CUDASIM=1 "
            "before numba is first imported (restart the kernel and run the "
            "setup cell with course.cudasim.choose_target() first)."
        )
    from numba.cuda.simulator import kernel, kernelapi

    report = CheckReport()
    original_run = kernel.BlockManager.run
    original_sync = kernel.BlockThread.syncthreads
    original_thread_run = kernel.BlockThread.run
    original_call = kernel.FakeCUDAKernel.__call__

    def syncthreads(self):
        self._course_barriers = getattr(self, "_course_barriers", 0) + 1
        report.barriers += 1
        return original_sync(self)

    def thread_run(self):
        try:
            original_thread_run(self)
        finally:
            counts = self._manager.__dict__.setdefault("_course_counts", {})
            counts[tuple(self.threadIdx)] = getattr(self, "_course_barriers", 0)

    def block_run(self, grid_point, *args):
        self._course_counts = {}
        original_run(self, grid_point, *args)
        report.blocks += 1
        counts = self._course_counts
        if len(set(counts.values())) > 1:
            by_count: dict[int, list] = {}
            for thread, n in sorted(counts.items()):
                by_count.setdefault(n, []).append(thread[0] if len(thread) else 0)
            parts = "; ".join(
                f"{len(ts)} thread(s) (first {ts[0]}) reached it {n} time(s)"
                for n, ts in sorted(by_count.items())
            )
            raise DivergentBarrierError(
                f"cuda.syncthreads() reached by only some threads of block "
                f"{tuple(grid_point)}: {parts}. On a GPU the block can hang. "
                "Every thread must reach every barrier: keep the barrier outside "
                "the `if`, and return early only after the last one."
            )

    def call(self, *args):
        if not self._device:
            report.launches += 1
            report.__dict__["_arguments"] = 0
        return original_call(self, *args)

    patches = [
        (kernel.BlockManager, "run", block_run),
        (kernel.BlockThread, "syncthreads", syncthreads),
        (kernel.BlockThread, "run", thread_run),
        (kernel.FakeCUDAKernel, "__call__", call),
        (
            kernelapi,
            "FakeCUDAShared",
            _tracked_shared(kernelapi.FakeCUDAShared, report),
        ),
        (kernelapi, "FakeCUDAAtomic", _atomic_class(kernelapi.FakeCUDAAtomic)),
        (
            kernel,
            "FakeWithinKernelCUDAArray",
            _tracked_global(kernel.FakeWithinKernelCUDAArray, report),
        ),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield report
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


__all__ = [
    "CheckReport",
    "DivergentBarrierError",
    "KernelRaceError",
    "choose_target",
    "describe_target",
    "race_check",
    "simulator_requested",
]
