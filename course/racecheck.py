"""Races, divergent barriers and unset shared memory, found on every run.

:func:`race_check` makes the simulator *deterministic about races*. Plain
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
  the block has written (a GPU gives whatever was there).

Indexing past the end fails as in the plain simulator (``IndexError`` with
the thread and block); negative indices wrap round as in NumPy, which is
what numba's CUDA target does too.

Atomics (``cuda.atomic.add`` and the rest) never conflict with each other.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from course.checkreport import CheckReport, outputs


class KernelRaceError(RuntimeError):
    """Two threads touched the same element without the ordering CUDA needs."""


class DivergentBarrierError(RuntimeError):
    """A ``cuda.syncthreads()`` was reached by only some threads of a block."""


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


class _Tracker:
    """The accesses to one array during one launch, and the conflict rules.

    Each element keeps, per thread and kind (plain or atomic), the barrier
    interval of that thread's last write and read: a plain write is never
    forgotten because the same thread later made an atomic one.
    """

    def __init__(self, name: str, shape: tuple[int, ...], shared: bool, report):
        self.name = name
        self.shape = tuple(shape)
        self.shared = shared
        self.report = report
        # element -> {(block, thread, atomic): interval}, for writes and reads
        self.writes: dict[int, dict] = {}
        self.reads: dict[int, dict] = {}
        self.lock = threading.Lock()

    def _conflict(self, records: dict, me: tuple, interval: int, atomic: bool):
        for (block, thread, their_atomic), their_interval in records.items():
            if (block, thread) == me:
                continue
            if atomic and their_atomic:
                continue
            if block == me[0] and their_interval != interval:
                continue  # same block, a barrier between
            if self.shared and block != me[0]:
                continue  # another block's shared memory is another array
            return (block, thread)
        return None

    def access(self, elements: Any, write: bool) -> None:
        where = _who()
        if where is None:
            return
        block, thread, interval = where
        me = (block, thread)
        atomic = bool(getattr(_local, "atomic", False))
        flat = np.ravel(elements).tolist()
        with self.lock:
            self.report.accesses += len(flat)
            for e in flat:
                writes = self.writes.setdefault(e, {})
                if self.shared and not write and not any(w[0] == block for w in writes):
                    self._unset(e, me)
                other = self._conflict(writes, me, interval, atomic)
                their = "write"
                if other is None and write:
                    other = self._conflict(self.reads.get(e, {}), me, interval, atomic)
                    their = "read"
                if other is not None:
                    self._fail(e, me, other, "wrote" if write else "read", their)
                records = writes if write else self.reads.setdefault(e, {})
                records[(block, thread, atomic)] = interval

    def _index(self, e: int) -> Any:
        index = np.unravel_index(e, self.shape)
        return int(index[0]) if len(index) == 1 else tuple(int(i) for i in index)

    def _unset(self, e, me) -> None:
        raise KernelRaceError(
            f"{_ids(*me)} read {self.name}[{self._index(e)}] before any thread of "
            "its block wrote it. Either nothing writes that element (shared memory "
            "starts with whatever the last block left there: write every element "
            "you read, padding with 0 past the end of the data), or the thread that "
            "writes it has not yet: a cuda.syncthreads() is missing between the "
            "write and this read."
        )

    def _fail(self, e, me, other, verb, their) -> None:
        index = self._index(e)
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


def _element_ids(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)


def _tracked_shared(base: type, report: CheckReport) -> type:
    class TrackedShared(base):  # type: ignore[misc, valid-type]
        def array(self, shape, dtype):  # noqa: D401 - numba's signature
            if shape == 0:  # dynamic shared memory: not tracked
                return super().array(shape, dtype)
            from numba.core import types
            from numba.np import numpy_support

            if isinstance(dtype, types.Type):
                dtype = numpy_support.as_dtype(dtype)
            frame = sys._getframe(1)
            where = (frame.f_code.co_filename, frame.f_lineno)
            with _ALLOCATING:  # threads of a block allocate at the same time
                arrays = self.__dict__.setdefault("_course_tracked", {})
                if where not in arrays:
                    plain = np.zeros(shape, dtype)
                    tracker = _Tracker(
                        f"shared array (line {frame.f_lineno})",
                        plain.shape,
                        True,
                        report,
                    )
                    arrays[where] = _SharedArray(
                        plain, tracker, _element_ids(plain.shape)
                    )
                return arrays[where]

    return TrackedShared


class _SharedArray:
    """A shared-memory array (or a row of one) as kernels use it, with every
    element access recorded; ``s[i][j]`` is a view, then an element access."""

    def __init__(self, data: np.ndarray, tracker: _Tracker, ids: np.ndarray):
        self._data = data
        self._tracker = tracker
        self._ids = ids

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    size = property(lambda self: self._data.size)
    ndim = property(lambda self: self._data.ndim)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, key: Any) -> Any:
        ids = self._ids[key]
        if np.ndim(ids):
            return _SharedArray(self._data[key], self._tracker, ids)
        self._tracker.access(ids, write=False)
        return self._data[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._tracker.access(self._ids[key], write=True)
        self._data[key] = value


def _tracked_global(base: type, report: CheckReport) -> type:
    class TrackedArgument(base):  # type: ignore[misc, valid-type]
        def __init__(self, item: Any) -> None:
            super().__init__(item)
            n = report.__dict__.get("_arguments", 0) + 1
            report.__dict__["_arguments"] = n
            shape = np.shape(item._ary)
            tracker = _Tracker(f"array argument {n}", shape, False, report)
            tracker.item = item  # whose values the launch leaves
            report.__dict__.setdefault("_trackers", []).append(tracker)
            self.__dict__["_course_tracker"] = tracker
            self.__dict__["_course_ids"] = _element_ids(shape)

        def __getitem__(self, key: Any) -> Any:
            if isinstance(key, str):  # a record's field
                return super().__getitem__(key)
            ids = self.__dict__["_course_ids"][key]
            got = super().__getitem__(key)
            if np.ndim(ids) == 0:
                self.__dict__["_course_tracker"].access(ids, False)
                return got
            if isinstance(got, base):  # a row: a view, tracked the same way
                view = TrackedArgument.__new__(TrackedArgument)
                view.__dict__.update(
                    _item=got._item,
                    _course_tracker=self.__dict__["_course_tracker"],
                    _course_ids=ids,
                )
                return view
            return got

        def __setitem__(self, key: Any, value: Any) -> None:
            if not isinstance(key, str):
                ids = self.__dict__["_course_ids"][key]
                self.__dict__["_course_tracker"].access(ids, True)
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

    from course import simblocks

    report = CheckReport()
    original_thread_run = kernel.BlockThread.run
    original_call = kernel.FakeCUDAKernel.__call__

    def syncthreads(self):
        self._course_barriers = getattr(self, "_course_barriers", 0) + 1
        report.barriers += 1
        return simblocks.syncthreads(self)

    def thread_run(self):
        try:
            original_thread_run(self)
        finally:
            counts = self._manager.__dict__.setdefault("_course_counts", {})
            counts[tuple(self.threadIdx)] = getattr(self, "_course_barriers", 0)

    def block_run(self, grid_point, *args):
        self._course_counts = {}
        simblocks.run(self, grid_point, *args)
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
        if self._device:
            return original_call(self, *args)
        report.launches += 1
        report.__dict__["_arguments"] = 0
        report.__dict__["_trackers"] = []
        try:
            return original_call(self, *args)
        finally:
            report.outputs.append(outputs(args, report.__dict__["_trackers"]))

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


__all__ = ["CheckReport", "DivergentBarrierError", "KernelRaceError", "race_check"]
