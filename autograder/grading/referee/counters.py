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
  still counted in the kernel by its own :class:`course.sync.SyncCounter`
  (torch tensors do not live in the store: the Reference guide's guarantees says
  what that leaves open).

* :func:`kernel_check`: :func:`course.cudasim.checked` (and ``race_check``)
  whose report (launches, barriers, blocks) is the store's: the store ran each
  kernel the block launched, race-checked (:mod:`course.simkernels`).

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
}


def transfer_counter(store: Any) -> Any:
    """``TransferCounter`` as a test calls it, on the kernel's store."""

    def make() -> TransferCounter:
        return TransferCounter(store)

    make.__name__ = make.__qualname__ = "TransferCounter"
    return make


class SyncCounter:
    """``course.sync.SyncCounter`` for a test: torch's syncs from the kernel's
    counter, the simulated GPU's from the store (see the module)."""

    def __init__(self, link: Any, store: Any, simulate: bool | None = None) -> None:
        module = link.call("import", "course.sync")
        kind = link.call("getattr", module, "SyncCounter")
        self._link = link
        self._remote = link.call("call", kind, (simulate,), {})
        self._window = StoreWindow(store) if store is not None else None

    def __enter__(self) -> SyncCounter:
        if self._window is not None:
            self._window.open()
        self._link.call("enter", self._remote)
        return self

    def __exit__(self, *exc: object) -> None:
        self._link.call("exit", self._remote, None, None, None)
        if self._window is not None:
            self._window.close()

    def _torch(self) -> list[SyncEvent]:
        found = self._link.materialize(
            self._link.call("getattr", self._remote, "torch_events")
        )
        events = []
        for item in found if isinstance(found, (list, tuple)) else ():
            if isinstance(item, (list, tuple)) and len(item) == 2:
                events.append(SyncEvent(str(item[0]), str(item[1])))
        return events

    @property
    def timeline(self) -> list[tuple[str, str, str]]:
        """The kernel's counter's torch syncs and uploads, in order."""
        found = self._link.materialize(
            self._link.call("getattr", self._remote, "timeline")
        )
        return [
            (str(item[0]), str(item[1]), str(item[2]))
            for item in (found if isinstance(found, (list, tuple)) else ())
            if isinstance(item, (list, tuple)) and len(item) == 3
        ]

    @property
    def events(self) -> list[SyncEvent]:
        found = self._window.events(("sync",)) if self._window is not None else []
        store = [SyncEvent(e[1], e[3] or "?") for e in found]
        return [*self._torch(), *store]

    @property
    def count(self) -> int:
        return len(self.events)

    def by_op(self) -> dict[str, int]:
        return dict(Counter(event.op for event in self.events))

    def summary(self) -> str:
        return summary_of(self.events)

    def __getattr__(self, name: str) -> Any:  # on_device, simulated...
        if name.startswith("_"):
            raise AttributeError(name)
        return self._link.call("getattr", self._remote, name)


class _KernelCheck:
    """One ``with checked() as report:`` block, reported by the store."""

    def __init__(self, store: Any) -> None:
        from course.racecheck import CheckReport

        self._store, self.report = store, CheckReport()

    def __enter__(self) -> Any:
        self._mark = self._store.request(["mark"])
        return self.report

    def __exit__(self, *exc: object) -> None:
        for event in self._store.request(["since", self._mark]):
            if event[0] == "kernel":  # [kind, name, barriers, where]
                self.report.launches += 1
                self.report.barriers += int(event[2])


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

    def make(simulate: bool | None = None) -> SyncCounter:
        return SyncCounter(link, link.store, simulate)

    make.__name__ = make.__qualname__ = "SyncCounter"
    return make


__all__ = [
    "COUNTERS",
    "SyncCounter",
    "counter_for",
    "kernel_check",
    "transfer_counter",
]
