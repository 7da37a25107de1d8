"""Count the copies between the host and the simulated GPU of :mod:`course.fakecupy`.

Every copy of ``fake_cupy`` data, either way, is recorded while a
:class:`TransferCounter` is active::

    from course.fakecupy import TransferCounter, fake_cupy as xp

    with TransferCounter() as copies:
        X = xp.asarray(X_host)      # one upload (host to device)
        loss = fit(X, y)
        print(float(loss))          # one download (device to host)
    copies.uploads, copies.downloads   # (1, 1)
    copies.by_op("upload")             # {"fake_cupy.asarray": 1}

A download is also a synchronisation, counted by :class:`course.sync.SyncCounter`
under the same name; an upload is not. Only the outermost call is counted:
``fake_cupy.asnumpy(d)`` calls ``d.get()`` inside, and is one copy.
"""

from __future__ import annotations

import functools
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Direction = Literal["upload", "download"]
_local = threading.local()  # .depth: how many counted copies are running


@dataclass(frozen=True)
class Transfer:
    """One copy: ``direction`` ("upload": host to device, "download": device to
    host), the operation, the bytes copied and the line that called it."""

    direction: Direction
    op: str
    nbytes: int
    where: str


class TransferCounter:
    """Context manager that counts the copies of ``fake_cupy`` data.

    Counters may be nested: each one active sees every copy.

    Attributes:
        events: every copy, in order, as :class:`Transfer`.
    """

    _active_lock = threading.Lock()
    _active: list[TransferCounter] = []

    def __init__(self) -> None:
        self.events: list[Transfer] = []

    @property
    def uploads(self) -> int:
        """Number of host-to-device copies."""
        return sum(event.direction == "upload" for event in self.events)

    @property
    def downloads(self) -> int:
        """Number of device-to-host copies (each also a synchronisation)."""
        return sum(event.direction == "download" for event in self.events)

    def by_op(self, direction: Direction | None = None) -> dict[str, int]:
        """Copies per operation, e.g. ``{"fake_cupy.asarray": 4}``, of one
        direction or of both."""
        return dict(
            Counter(
                event.op
                for event in self.events
                if direction in (None, event.direction)
            )
        )

    def summary(self) -> str:
        """One line per direction and operation, with its first caller."""
        if not self.events:
            return "no host-device copy"
        lines = [f"{self.uploads} upload(s), {self.downloads} download(s):"]
        first: dict[tuple[str, str], str] = {}
        for event in self.events:
            first.setdefault((event.direction, event.op), event.where)
        for (direction, op), where in first.items():
            n = self.by_op(direction)[op]  # type: ignore[arg-type]
            lines.append(f"  {n:5d} x {direction} {op}  (first at {where})")
        return "\n".join(lines)

    def __enter__(self) -> TransferCounter:
        with TransferCounter._active_lock:
            TransferCounter._active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with TransferCounter._active_lock:
            TransferCounter._active.remove(self)


_SKIPPED = (  # the counters' own frames
    "course/fakecupy.py",
    "course/devicearray.py",
    "course/transfers.py",
    "course/sync.py",
)


def _caller() -> str:
    """``file:line`` of the first frame outside the course's counters and NumPy."""
    for frame in reversed(traceback.extract_stack(limit=16)[:-2]):
        name = frame.filename.replace("\\", "/")
        if "/numpy/" in name or name.endswith(_SKIPPED):
            continue
        return f"{name}:{frame.lineno}"
    return "?"


def record(direction: Direction, op: str, nbytes: int | None) -> None:
    """Count one copy in every active counter, unless it runs inside another
    counted copy (see :func:`copying`). ``nbytes`` None: no copy after all."""
    if nbytes is None or getattr(_local, "depth", 0) or not TransferCounter._active:
        return
    event = Transfer(direction, op, int(nbytes), _caller())
    with TransferCounter._active_lock:
        for counter in TransferCounter._active:
            counter.events.append(event)


def copying(
    direction: Direction, op: str, size: Callable[..., int | None]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: each outermost call of the function is one copy of
    ``size(*args)`` bytes (None: no copy); the copies it makes inside are part
    of it."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def counted(*args: Any, **kwargs: Any) -> Any:
            record(direction, op, size(*args))
            depth = getattr(_local, "depth", 0)
            _local.depth = depth + 1
            try:
                return function(*args, **kwargs)
            finally:
                _local.depth = depth

        return counted

    return decorate
