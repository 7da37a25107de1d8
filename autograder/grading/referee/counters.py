"""The counters a test uses, in the referee: the store's counts, not the kernel's.

A test that counts copies or syncs (``with SyncCounter() as syncs: ...``)
gets these in place of :mod:`course.sync`'s and :mod:`course.transfers`'
classes, whatever name the lesson or the test imported them under:

* :func:`transfer_counter`: :class:`course.transfers.TransferCounter` reading
  the kernel's store through the control channel, which the kernel never
  holds. Clearing, patching or replacing anything in the kernel changes
  nothing it reads.
* :class:`SyncCounter`: the store's syncs (the simulated GPU's reads, errors,
  data-dependent shapes) through the same channel, plus torch's, which are
  still counted in the kernel by a :class:`course.sync.SyncCounter` of the
  class bound before the notebook ran, and read as its record's data
  (:mod:`autograder.grading.referee.pins`; torch tensors do not live in the
  store: the Reference guide's guarantees table says what that leaves open).
* :func:`trace_for`: ``course.gpumodel.trace``, run in the kernel by the
  pinned tracer, read here as its events.

* :func:`kernel_check`: :func:`course.cudasim.checked` (and ``race_check``)
  whose report (launches, barriers, and what each launch wrote into its
  arrays, :meth:`course.racecheck.CheckReport.written`) is the store's: the
  store ran each kernel the block launched, race-checked
  (:mod:`course.simkernels`).

A kernel with no store (a lesson that uses only torch) keeps the kernel's own
``TransferCounter``; its ``SyncCounter`` is this one, counting torch alone.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from course.sync import SyncEvent, summary_of
from course.transfers import StoreWindow, TransferCounter

#: ``(module, name)`` of each counter class a test may import.
COUNTERS = {
    ("course.sync", "SyncCounter"): "sync",
    ("course.transfers", "TransferCounter"): "transfer",
    ("course.fakecupy", "TransferCounter"): "transfer",
    ("course.cudasim", "checked"): "kernels",
    ("course.cudasim", "race_check"): "kernels",
    ("course.racecheck", "race_check"): "kernels",
    ("course.gpumodel", "trace"): "trace",
    ("course.gpumodel.tracing", "trace"): "trace",
}
#: Modules a test reads a counter from as an attribute (``gpumodel.trace``).
COUNTER_MODULES = {"course.gpumodel", "course.gpumodel.tracing"}


def transfer_counter(store: Any) -> Any:
    """``TransferCounter`` as a test calls it, on the kernel's store."""

    def make() -> TransferCounter:
        return TransferCounter(store)

    make.__name__ = make.__qualname__ = "TransferCounter"
    return make


class SyncCounter:
    """``course.sync.SyncCounter`` for a test: torch's syncs from the kernel's
    counter, the simulated GPU's from the store (see the module). The kernel's
    counter is of the class bound before the notebook ran, entered and left
    with its own methods, and read as its record's data
    (:mod:`autograder.grading.referee.pins`): no name the answer can assign."""

    def __init__(self, link: Any, store: Any, simulate: bool | None = None) -> None:
        self._link = link
        self._remote = link.call("sync.make", simulate)
        self._window = StoreWindow(store) if store is not None else None

    def __enter__(self) -> SyncCounter:
        if self._window is not None:
            self._window.open()
        self._link.call("sync.enter", self._remote)
        return self

    def __exit__(self, *exc: object) -> None:
        self._link.call("sync.exit", self._remote)
        if self._window is not None:
            self._window.close()

    def _read(self, part: str) -> Any:
        return self._link.call("sync.read", self._remote, part)

    def _torch(self) -> list[SyncEvent]:
        return [SyncEvent(str(op), str(where)) for op, where in self._read("torch")]

    @property
    def timeline(self) -> list[tuple[str, str, str]]:
        """The kernel's counter's torch syncs and uploads, in order."""
        return [(str(k), str(op), str(w)) for k, op, w in self._read("timeline")]

    @property
    def torch_events(self) -> list[tuple[str, str]]:
        return [(e.op, e.where) for e in self._torch()]

    @property
    def early_reads(self) -> list[SyncEvent]:
        return [SyncEvent(str(o), str(w)) for o, w in self._read("early_reads")]

    @property
    def setup(self) -> list[SyncEvent]:
        return [SyncEvent(str(o), str(w)) for o, w in self._read("setup")]

    @property
    def simulated(self) -> bool:
        return bool(self._read("simulated"))

    @property
    def unpatched(self) -> list[str]:
        return [str(x) for x in self._read("unpatched")]

    def on_device(self, tensor: Any) -> bool:
        return bool(self._link.call("sync.on_device", self._remote, tensor))

    def unfinished(self, tensor: Any) -> bool:
        return bool(self._link.call("sync.unfinished", self._remote, tensor))

    @property
    def events(self) -> list[SyncEvent]:
        found = self._window.events(("sync",)) if self._window is not None else []
        store = [SyncEvent(e[1], e[3] or "?") for e in found]
        return [*self._torch(), *store]

    @property
    def count(self) -> int:
        return len(self.events)

    @property
    def torch_count(self) -> int:
        return len(self._torch())

    def by_op(self) -> dict[str, int]:
        return dict(Counter(event.op for event in self.events))

    def summary(self) -> str:
        return summary_of(self.events)


class ModuleView:
    """A module of the kernel's (a proxy) with some of its names the referee's."""

    def __init__(self, module: Any, own: dict[str, Any]) -> None:
        self._module, self._own = module, own

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._own:
            return self._own[name]
        return getattr(self._module, name)


def trace_for(link: Any) -> Any:
    """``course.gpumodel.trace`` as a test calls it: the kernel runs ``fn``
    under the pinned tracer and sends the events back as data; the trace the
    test reads is this process's own :class:`course.gpumodel.tracing.Trace`."""

    def trace(fn: Any) -> Any:
        import torch

        from course.gpumodel.tracing import Event, Trace

        found = link.call("trace.run", fn)
        events = []
        for kind, name, flops, nbytes, dtype, part, library in found:
            kind_of = getattr(torch, str(dtype), None)
            events.append(
                Event(
                    str(kind),
                    str(name),
                    float(flops),
                    float(nbytes),
                    kind_of if isinstance(kind_of, torch.dtype) else torch.float32,
                    str(part),
                    str(library),
                )
            )
        return Trace(events)

    return trace


class _KernelCheck:
    """One ``with checked() as report:`` block, reported by the store."""

    def __init__(self, store: Any) -> None:
        from course.racecheck import CheckReport

        self._store, self.report = store, CheckReport()

    def __enter__(self) -> Any:
        self._mark = self._store.request(["mark"])
        return self.report

    def __exit__(self, *exc: object) -> None:
        from course.simlink import decode

        for event in self._store.request(["since", self._mark]):
            if event[0] == "kernel":  # [kind, name, barriers, where]
                self.report.launches += 1
                self.report.barriers += int(event[2])
        for launch in self._store.request(["launched", self._mark, True]):
            written = launch[3]  # None: older than the store keeps
            self.report.outputs.append(
                None
                if written is None
                else [None if w is None else decode(w, None) for w in written]
            )


def kernel_check(store: Any) -> Any:
    """``checked``/``race_check`` as a test calls them, on the kernel's store."""

    def make() -> _KernelCheck:
        return _KernelCheck(store)

    make.__name__ = make.__qualname__ = "checked"
    return make


def counter_for(kind: str, link: Any) -> Any:
    """The referee's class for a counter of ``kind`` on ``link``'s store."""
    if kind == "transfer":
        return transfer_counter(link.store)
    if kind == "kernels":
        return kernel_check(link.store)
    if kind == "trace":
        return trace_for(link)

    def make(simulate: bool | None = None) -> SyncCounter:
        return SyncCounter(link, link.store, simulate)

    make.__name__ = make.__qualname__ = "SyncCounter"
    return make


__all__ = [
    "COUNTERS",
    "COUNTER_MODULES",
    "ModuleView",
    "trace_for",
    "SyncCounter",
    "counter_for",
    "kernel_check",
    "transfer_counter",
]
