"""CUDA streams: simulated where torch has no CUDA, and what a counter sees.

A copy overlaps compute only on a second stream (PyTorch documentation, "CUDA
semantics": work on one stream runs in the order it was issued; streams run
side by side until one waits for the other). The idiom::

    side = torch.cuda.Stream()
    with torch.cuda.stream(side):                   # the copy, on the side
        X = X_host.to(device, non_blocking=True)
    torch.cuda.current_stream().wait_stream(side)   # compute waits for it
    X.record_stream(torch.cuda.current_stream())    # allocator: used there

**On a machine without CUDA** :func:`install` (run when :mod:`course.sync` is
imported) gives ``torch.cuda`` a simulated ``Stream``, ``Event``,
``stream()``, ``current_stream()``, ``default_stream()``, and lets
``Tensor.record_stream`` take a simulated stream, so the same code runs
unchanged: outside a :class:`~course.sync.SyncCounter` the calls do nothing
(a CPU has nothing to overlap); inside one they are recorded.

**What a counter records** (:attr:`SyncCounter.timeline`, on a GPU and on the
simulated one alike; streams are numbered in the order the block meets them,
0 being the default stream, where a step's work runs):

- ``("upload", op, where)``: a copy to the device, ``op`` ending in ``" on
  stream N"`` when issued on a stream other than the default;
- ``("wait", "stream M waits for stream N up to copy K", where)``: stream M's
  later work waits for everything stream N had been given when the wait (or
  the event it waits on) was issued: up to the K-th copy of the block;
- ``("use", "copy K from stream N used on stream M", where)``: the first op
  on stream M that reads copy K, made on stream N (left out where both are
  the default stream, so code without streams keeps the timeline it had);
- ``("record", "copy K recorded for stream M", where)``: ``record_stream``.

:func:`read_streams` turns those back into facts a test can check.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from course.sync import SyncCounter

_COPY_TAG = "_course_copy"  # (counter token, copy number, stream number)
_local = threading.local()


class SimStream:
    """A CUDA stream of the simulated GPU: every call works, nothing waits."""

    _serial = itertools.count(1)

    def __init__(self, device: Any = None, priority: int = 0, **_: Any) -> None:
        self.stream_id = next(SimStream._serial) if device != "default" else 0
        self.device = torch.device("cpu")
        self.priority = priority

    def wait_event(self, event: SimEvent) -> None:
        event.wait(self)

    def wait_stream(self, stream: SimStream) -> None:
        self.wait_event(stream.record_event())

    def record_event(self, event: SimEvent | None = None) -> SimEvent:
        event = SimEvent() if event is None else event
        event.record(self)
        return event

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        from course.sync import note_wait

        note_wait("torch.cuda.Stream.synchronize", device_wait=False)

    def __repr__(self) -> str:
        return f"<simulated torch.cuda.Stream {self.stream_id}>"


class SimEvent:
    """A CUDA event of the simulated GPU."""

    def __init__(self, *_: Any, **__: Any) -> None:
        self.stream: SimStream | None = None

    def record(self, stream: SimStream | None = None) -> None:
        self.stream = stream if stream is not None else current_stream()

    def wait(self, stream: SimStream | None = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        from course.sync import note_wait

        note_wait("torch.cuda.Event.synchronize", device_wait=False)

    def elapsed_time(self, other: SimEvent) -> float:
        raise RuntimeError(
            "elapsed_time needs a real GPU's clock; on a CPU, time the work "
            "with torch.utils.benchmark.Timer or course.timing.benchmark"
        )


_DEFAULT = SimStream("default")


def current_stream(device: Any = None) -> SimStream:
    """The simulated current stream of this thread."""
    return getattr(_local, "stream", None) or _DEFAULT


def default_stream(device: Any = None) -> SimStream:
    return _DEFAULT


@contextlib.contextmanager
def stream(new: SimStream | None) -> Any:
    """``torch.cuda.stream``: ``new`` is the current stream inside the block
    (``None``: no change)."""
    if new is None:
        yield
        return
    before = getattr(_local, "stream", None)
    _local.stream = new
    try:
        yield
    finally:
        _local.stream = before


def set_stream(new: SimStream) -> None:
    _local.stream = new


_INSTALLED: list[tuple[Any, str, Any]] = []


def install() -> bool:
    """Give ``torch.cuda`` the simulated streams where torch sees no CUDA
    (once). Returns whether they are installed."""
    if _INSTALLED:
        return True
    if torch.cuda.is_available():
        return False
    original_record = torch.Tensor.record_stream

    def record_stream(self: torch.Tensor, stream: Any) -> None:
        if not isinstance(stream, SimStream):
            original_record(self, stream)

    for owner, name, new in (
        (torch.cuda, "Stream", SimStream),
        (torch.cuda, "Event", SimEvent),
        (torch.cuda, "stream", stream),
        (torch.cuda, "current_stream", current_stream),
        (torch.cuda, "default_stream", default_stream),
        (torch.cuda, "set_stream", set_stream),
        (torch.Tensor, "record_stream", record_stream),
    ):
        _INSTALLED.append((owner, name, getattr(owner, name)))
        setattr(owner, name, new)
    return True


class StreamBook:
    """One counter's record of streams: numbers, copies, events and waits."""

    def __init__(self, counter: SyncCounter) -> None:
        self.counter = counter
        self.numbers: dict[Any, int] = {}
        self.last_copy: dict[int, int] = {}  # stream number: its last copy
        self.events: dict[int, tuple[int, int]] = {}  # id(event): (stream, copy)
        self.used: set[tuple[int, int]] = set()

    def number(self, stream: Any) -> int:
        if isinstance(stream, SimStream):
            key: Any = stream.stream_id
            default = stream.stream_id == 0
        else:
            key = (stream.device_index, stream.stream_id)
            default = stream == torch.cuda.default_stream(stream.device)
        if default:
            return 0
        return self.numbers.setdefault(key, len(self.numbers) + 1)

    def current(self) -> int:
        if not (_INSTALLED or torch.cuda.is_available()):
            return 0
        return self.number(torch.cuda.current_stream())

    def _note(self, kind: str, op: str) -> None:
        from course.devicecalls import caller
        from course.sync import SyncEvent

        self.counter._timeline.append((kind, SyncEvent(op, caller())))

    def copied(self, tensors: list[torch.Tensor], where: int) -> None:
        """Copy number ``counter's uploads so far`` was issued on ``where``."""
        number = sum(kind == "upload" for kind, _ in self.counter._timeline)
        self.last_copy[where] = number
        for tensor in tensors:
            try:
                setattr(tensor, _COPY_TAG, (self.counter._token, number, where))
            except (AttributeError, RuntimeError):
                pass

    def used_by(self, tensors: list[torch.Tensor]) -> None:
        here = None
        for tensor in tensors:
            tag = getattr(tensor, _COPY_TAG, None)
            if tag is None or tag[0] != self.counter._token:
                continue
            here = self.current() if here is None else here
            _, number, made_on = tag
            if (made_on, here) != (0, 0) and (number, here) not in self.used:
                self.used.add((number, here))
                self._note(
                    "use", f"copy {number} from stream {made_on} used on stream {here}"
                )

    def recorded(self, tensor: Any, stream: Any) -> None:
        tag = getattr(tensor, _COPY_TAG, None)
        number = tag[1] if tag and tag[0] == self.counter._token else 0
        self._note("record", f"copy {number} recorded for stream {self.number(stream)}")

    def event_recorded(self, event: Any, stream: Any) -> None:
        where = self.number(
            stream if stream is not None else torch.cuda.current_stream()
        )
        self.events[id(event)] = (where, self.last_copy.get(where, 0))

    def waited(self, event: Any, stream: Any) -> None:
        if stream is None:
            stream = torch.cuda.current_stream()
        on, upto = self.events.get(id(event), (None, 0))
        if on is None:
            return  # an event recorded before the block: nothing of it copied
        self._note(
            "wait",
            f"stream {self.number(stream)} waits for stream {on} up to copy {upto}",
        )

    def patch(self, patches: list[tuple[Any, str, Any, bool]]) -> None:
        """Watch events and ``record_stream`` for the counter's block (the
        real ones on a GPU, the simulated ones here); ``patches``: the
        counter's list of what to put back."""
        if not (_INSTALLED or torch.cuda.is_available()):
            return
        book, event_class = self, torch.cuda.Event
        record, wait = event_class.record, event_class.wait
        record_stream = torch.Tensor.record_stream

        def record_event(self: Any, stream: Any = None) -> Any:
            out = record(self, stream) if stream is not None else record(self)
            book.event_recorded(self, stream)
            return out

        def wait_event(self: Any, stream: Any = None) -> Any:
            out = wait(self, stream) if stream is not None else wait(self)
            book.waited(self, stream)
            return out

        def recorded(self: torch.Tensor, stream: Any) -> Any:
            book.recorded(self, stream)
            return record_stream(self, stream)

        for owner, name, new in (
            (event_class, "record", record_event),
            (event_class, "wait", wait_event),
            (torch.Tensor, "record_stream", recorded),
        ):
            patches.append((owner, name, getattr(owner, name), name in vars(owner)))
            setattr(owner, name, new)


@dataclass
class CopyFacts:
    """One copy to the device, as :func:`read_streams` finds it."""

    number: int
    stream: int  # 0: the default stream
    op: str
    #: the streams whose work read it (none listed for a copy on the default
    #: stream read there)
    used_on: list[int] = field(default_factory=list)
    used_before_a_wait: list[int] = field(default_factory=list)
    recorded_for: list[int] = field(default_factory=list)


@dataclass
class StreamFacts:
    """What a counter's timeline says of copies, streams and waits."""

    copies: list[CopyFacts]
    #: before each sync: how many copies had been issued
    copies_before_each_sync: list[int]
    #: before each sync: the last copy the default stream had waited for
    #: (on another stream; 0: none)
    waited_before_each_sync: list[int]


_STREAM = re.compile(r" on stream (\d+)$")
_WAIT = re.compile(r"stream (\d+) waits for stream (\d+) up to copy (\d+)")
_USE = re.compile(r"copy (\d+) from stream (\d+) used on stream (\d+)")
_RECORD = re.compile(r"copy (\d+) recorded for stream (\d+)")


def read_streams(timeline: list[tuple[str, str, str]]) -> StreamFacts:
    """The facts of a counter's ``timeline`` (see the module)."""
    copies: list[CopyFacts] = []
    waited: dict[tuple[int, int], int] = {}  # (waiting, on): last copy covered
    before, waits = [], []
    for kind, op, _where in timeline:
        if kind == "upload":
            found = _STREAM.search(op)
            copies.append(CopyFacts(len(copies) + 1, int(found[1]) if found else 0, op))
        elif kind == "sync":
            before.append(len(copies))
            waits.append(max((k for (m, _), k in waited.items() if m == 0), default=0))
        elif kind == "wait" and (found := _WAIT.search(op)):
            key = (int(found[1]), int(found[2]))
            waited[key] = max(waited.get(key, 0), int(found[3]))
        elif kind == "use" and (found := _USE.search(op)):
            number, made_on, on = (int(x) for x in found.groups())
            if 0 < number <= len(copies):
                copies[number - 1].used_on.append(on)
                if on != made_on and waited.get((on, made_on), 0) < number:
                    copies[number - 1].used_before_a_wait.append(on)
        elif kind == "record" and (found := _RECORD.search(op)):
            number, on = int(found[1]), int(found[2])
            if 0 < number <= len(copies):
                copies[number - 1].recorded_for.append(on)
    return StreamFacts(copies, before, waits)
