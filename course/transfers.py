"""Count the copies between the host and the simulated GPU of :mod:`course.fakecupy`.

Every copy of ``fake_cupy`` data, either way, is counted by the simulated GPU's
store (:mod:`course.simstore`); a :class:`TransferCounter` reads back the
copies made while it was active::

    from course.fakecupy import TransferCounter, fake_cupy as xp

    with TransferCounter() as copies:
        X = xp.asarray(X_host)      # one upload (host to device)
        loss = fit(X, y)
        print(float(loss))          # one download (device to host)
    copies.uploads, copies.downloads   # (1, 1)
    copies.by_op("upload")             # {"fake_cupy.asarray": 1}

A download is also a synchronisation, counted by :class:`course.sync.SyncCounter`
under the same name; an upload is not. Each call is one copy:
``fake_cupy.asnumpy(d)`` is one download, not two. The counter keeps no
count of its own: clearing its list changes nothing the store saw.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from course.simlink import Connection, connection

Direction = Literal["upload", "download"]


@dataclass(frozen=True)
class Transfer:
    """One copy: ``direction`` ("upload": host to device, "download": device to
    host), the operation, the bytes copied and the line that called it."""

    direction: Direction
    op: str
    nbytes: int
    where: str


class StoreWindow:
    """The store's events between a counter's ``__enter__`` and ``__exit__``."""

    def __init__(self, link: Connection | None = None) -> None:
        self._given = link
        self._mark: int | None = None
        self._upto: int | None = None
        self._done: list[Any] | None = None

    @property
    def link(self) -> Connection:
        return self._given or connection()

    def open(self) -> None:
        self._mark, self._upto, self._done = self.link.request(["mark"]), None, None

    def close(self) -> None:
        self._upto = self.link.request(["mark"])

    def events(self, kinds: tuple[str, ...]) -> list[Any]:
        """``[kind, op, nbytes, where]`` of these kinds, in order."""
        if self._mark is None:
            return []
        if self._done is not None:
            found = self._done
        else:
            found = self.link.request(["since", self._mark, self._upto])
            if self._upto is not None:
                self._done = found
        return [e for e in found if e[0] in kinds]


class TransferCounter:
    """Context manager that counts the copies of ``fake_cupy`` data.

    Counters may be nested: each one active sees every copy.

    Args:
        link: the store to read (default: this process's).
    """

    def __init__(self, link: Connection | None = None) -> None:
        self._window = StoreWindow(link)

    @property
    def events(self) -> list[Transfer]:
        """Every copy, in order, as :class:`Transfer`."""
        return [
            Transfer(kind, op, int(nbytes), where)
            for kind, op, nbytes, where in self._window.events(("upload", "download"))
        ]

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
        events = self.events
        if not events:
            return "no host-device copy"
        ups = sum(e.direction == "upload" for e in events)
        lines = [f"{ups} upload(s), {len(events) - ups} download(s):"]
        first: dict[tuple[str, str], str] = {}
        for event in events:
            first.setdefault((event.direction, event.op), event.where)
        for (direction, op), where in first.items():
            n = sum(e.direction == direction and e.op == op for e in events)
            lines.append(f"  {n:5d} x {direction} {op}  (first at {where})")
        return "\n".join(lines)

    def __enter__(self) -> TransferCounter:
        self._window.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self._window.close()


# Where a torch copy goes, and whether it is queued: read by course.sync.


def non_blocking(args: tuple, kwargs: dict, method: str = "to") -> bool:
    """Whether a call asks for a queued copy. ``args``: its arguments after the
    tensor (``method="to"``: ``.to(...)``'s, read by its overloads as torch reads
    them: ``(device, dtype, non_blocking, copy)``, ``(dtype, non_blocking,
    copy)``, ``(other, non_blocking, copy)``), or after the tensor and the source
    (``method="copy_"``: ``(non_blocking,)``; ``"cuda"``: ``(device,
    non_blocking)``; ``"cpu"``: none)."""
    import torch

    if "non_blocking" in kwargs:
        return bool(kwargs["non_blocking"])
    if method == "cpu" or not args:
        return False
    if method == "copy_":
        return bool(args[0])
    at = (
        1 if method == "cuda" or isinstance(args[0], (torch.dtype, torch.Tensor)) else 2
    )
    return len(args) > at and bool(args[at])


def pinned(tensor: Any) -> bool:
    """Whether a host tensor is in pinned (page-locked) memory."""
    try:
        return tensor.is_pinned()
    except RuntimeError:  # no accelerator to ask
        return False


def host_target(args: tuple, kwargs: dict, simulated: bool) -> bool | None:
    """Whether ``.to(...)``'s arguments name the host (True), a GPU (False),
    or neither (None: a dtype, say, or the ``meta`` device). The string
    ``"cpu"`` names the host; on a simulated GPU a ``torch.device`` object is
    the lesson's ``device``, which stands for the GPU there."""
    import torch

    target = kwargs.get("device", args[0] if args else None)
    if isinstance(target, int) and not isinstance(target, bool):
        return False  # a CUDA device's index
    if isinstance(target, torch.device) and simulated:
        return False
    if isinstance(target, str):
        target = torch.device(target)
    if not isinstance(target, torch.device):
        return None
    if target.type == "cpu":
        return True
    return False if target.type in ("cuda", "mps", "xpu") else None


__all__ = [
    "host_target",
    "non_blocking",
    "pinned",
    "StoreWindow",
    "Transfer",
    "TransferCounter",
]
