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
  (torch tensors do not live in the store: the README's guarantees table says
  what that leaves open).

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


def counter_for(kind: str, link: Any) -> Any:
    """The referee's class for a counter of ``kind`` on ``link``'s store."""
    if kind == "transfer":
        return transfer_counter(link.store)

    def make(simulate: bool | None = None) -> SyncCounter:
        return SyncCounter(link, link.store, simulate)

    make.__name__ = make.__qualname__ = "SyncCounter"
    return make


__all__ = ["COUNTERS", "SyncCounter", "counter_for", "transfer_counter"]
