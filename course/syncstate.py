"""The sync counters in use, shared by the modules that count.

:class:`course.sync.SyncCounter` registers itself in :data:`ACTIVE` while its
block runs; the simulated streams (:mod:`course.streams`), the rules
(:mod:`course.syncrules`) and the counter's function mode
(:mod:`course.syncwatch`) read it here, so none of them imports the counter:
imports among them go one way, down to this module.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

#: The counters whose block is running (one at a time), and its lock.
ACTIVE: list[Any] = []
ACTIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class SyncEvent:
    """One synchronising call: what was called and the line that called it."""

    op: str
    where: str


def note_wait(op: str, device_wait: bool = True) -> None:
    """The host waited for the device (``op``: a ``synchronize``): one
    synchronisation, after which every queued copy has arrived, for each
    counter in use. ``device_wait`` False: a CPU's no-op wait, counted only
    where the counter plays a GPU."""
    for counter in list(ACTIVE):
        if device_wait or counter.simulated:
            counter._record(op, None)


def simulating() -> bool:
    """Whether a counter in use plays a GPU on this machine."""
    return any(counter.simulated for counter in ACTIVE)


__all__ = ["ACTIVE", "ACTIVE_LOCK", "SyncEvent", "note_wait", "simulating"]
