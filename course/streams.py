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

import itertools
import threading
from typing import Any

import torch

from course.streamfacts import CopyFacts, StreamFacts, read_streams
from course.syncstate import ACTIVE, SyncEvent, note_wait

_COPY_TAG = "_course_copy"  # (counter token, copy number, stream number)
_EVENT_TAG = "_course_event"  # (counter token, the book's serial of the record)
_local = threading.local()


class SimStream:
    """A CUDA stream of the simulated GPU: every call works, nothing waits."""

    _serial = itertools.count(1)

    def __init__(
        self,
        device: Any = None,
        priority: int = 0,
        stream_id: int | None = None,
        **_: Any,
    ) -> None:
        # stream_id rebuilds an existing stream, as torch.cuda.Stream's does
        self.stream_id = next(SimStream._serial) if stream_id is None else stream_id
        self.device = torch.device("cpu")
        self.priority = priority

    def __enter__(self) -> SimStream:  # a stream is its own context, as torch's
        self._context = StreamContext(self)
        self._context.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(*exc)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SimStream) and other.stream_id == self.stream_id

    def __hash__(self) -> int:
        return hash(self.stream_id)

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
        note_wait("torch.cuda.Stream.synchronize", device_wait=False)

    def __repr__(self) -> str:
        return f"<simulated torch.cuda.Stream {self.stream_id}>"


class SimEvent:
    """A CUDA event of the simulated GPU."""

    def __init__(self, *_: Any, **__: Any) -> None:
        pass

    def record(self, stream: SimStream | None = None) -> None:
        pass

    def wait(self, stream: SimStream | None = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        note_wait("torch.cuda.Event.synchronize", device_wait=False)

    def elapsed_time(self, other: SimEvent) -> float:
        raise RuntimeError(
            "elapsed_time needs a real GPU's clock; on a CPU, time the work "
            "with torch.utils.benchmark.Timer or course.timing.benchmark"
        )


_DEFAULT = SimStream(stream_id=0)


def current_stream(device: Any = None) -> SimStream:
    """The simulated current stream of this thread."""
    return getattr(_local, "stream", None) or _DEFAULT


def default_stream(device: Any = None) -> SimStream:
    return _DEFAULT


class StreamContext:
    """``torch.cuda.StreamContext``: ``new`` is the current stream inside the
    block (``None``: no change)."""

    def __init__(self, new: SimStream | None) -> None:
        self.new = new

    def __enter__(self) -> SimStream | None:
        self.before = getattr(_local, "stream", None)
        if self.new is not None:
            _local.stream = self.new
        return self.new

    def __exit__(self, *exc: object) -> None:
        _local.stream = self.before


def stream(new: SimStream | None) -> StreamContext:
    """``torch.cuda.stream``."""
    return StreamContext(new)


def set_stream(new: SimStream) -> None:
    _local.stream = new


_installed = False


def _has_streams() -> bool:
    """Whether ``torch.cuda``'s stream calls work here: simulated or real."""
    return _installed or torch.cuda.is_available()


def install() -> bool:
    """Give ``torch.cuda`` the simulated streams where torch sees no CUDA, or
    the course is told to use the CPU (once). Returns whether they are
    installed."""
    global _installed
    from course.env import force_cpu

    if _installed:
        return True
    if torch.cuda.is_available() and not force_cpu():
        return False
    original_record = torch.Tensor.record_stream

    def record_stream(self: torch.Tensor, stream: Any) -> None:
        if not isinstance(stream, SimStream):
            original_record(self, stream)
            return
        for counter in list(ACTIVE):
            counter._streams.recorded(self, stream)

    for owner, name, new in (
        (torch.cuda, "Stream", SimStream),
        (torch.cuda, "Event", SimEvent),
        (torch.cuda, "StreamContext", StreamContext),
        (torch.cuda, "stream", stream),
        (torch.cuda, "current_stream", current_stream),
        (torch.cuda, "default_stream", default_stream),
        (torch.cuda, "set_stream", set_stream),
        (torch.Tensor, "record_stream", record_stream),
    ):
        setattr(owner, name, new)
    _installed = True
    return True


class StreamBook:
    """One counter's record of streams: numbers, copies, events and waits."""

    def __init__(self, counter: Any) -> None:  # a course.sync.SyncCounter
        self.counter = counter
        self.numbers: dict[Any, int] = {}
        self.last_copy: dict[int, int] = {}  # stream number: its last copy
        self.uploads = 0  # copies to the device so far, in the timeline
        self.last_stream = 0
        self.events: dict[int, tuple[int, int]] = {}  # serial: (stream, copy)
        self.serials = itertools.count(1)
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
        if not _has_streams():
            return 0
        return self.number(torch.cuda.current_stream())

    def _note(self, kind: str, op: str) -> None:
        from course.devicecalls import caller

        self.counter._timeline.append((kind, SyncEvent(op, caller())))

    def issued(self, where: int) -> None:
        """A copy to the device was put in the timeline, on stream ``where``."""
        self.uploads += 1
        self.last_copy[where] = self.uploads
        self.last_stream = where

    def copied(self, tensors: list[torch.Tensor]) -> None:
        """``tensors`` hold the last copy issued (:meth:`issued`)."""
        tag = (self.counter._token, self.uploads, self.last_stream)
        for tensor in tensors:
            try:
                setattr(tensor, _COPY_TAG, tag)
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
        serial = next(self.serials)
        try:
            setattr(event, _EVENT_TAG, (self.counter._token, serial))
        except (AttributeError, TypeError):
            return
        self.events[serial] = (where, self.last_copy.get(where, 0))

    def waited(self, event: Any, stream: Any) -> None:
        if stream is None:
            stream = torch.cuda.current_stream()
        tag = getattr(event, _EVENT_TAG, None)
        if tag is None or tag[0] != self.counter._token:
            return  # never recorded in the block: a wait on it waits for nothing
        on, upto = self.events[tag[1]]
        self._note(
            "wait",
            f"stream {self.number(stream)} waits for stream {on} up to copy {upto}",
        )

    def patch(self, patches: list[tuple[Any, str, Any, bool]]) -> None:
        """Watch events for the counter's block (the real ones on a GPU, the
        simulated ones here; ``record_stream`` is seen by the counter's function
        mode on a GPU, by the simulated one here). On a GPU a host wait on a
        stream or an event is a synchronisation too, as the simulated ones
        count it. ``patches``: the counter's list of what to put back."""
        if not _has_streams():
            return
        book, event_class = self, torch.cuda.Event
        record, wait = event_class.record, event_class.wait

        def record_event(self: Any, stream: Any = None) -> Any:
            out = record(self, stream) if stream is not None else record(self)
            book.event_recorded(self, stream)
            return out

        def wait_event(self: Any, stream: Any = None) -> Any:
            out = wait(self, stream) if stream is not None else wait(self)
            book.waited(self, stream)
            return out

        news: list[tuple[Any, str, Any]] = [
            (event_class, "record", record_event),
            (event_class, "wait", wait_event),
        ]
        if not _installed:  # torch's own streams: their host waits
            for owner in (torch.cuda.Stream, event_class):
                news.append((owner, "synchronize", _host_wait(owner)))
        for owner, name, new in news:
            patches.append((owner, name, getattr(owner, name), name in vars(owner)))
            setattr(owner, name, new)


def _host_wait(owner: Any) -> Any:
    original = owner.synchronize
    op = f"torch.cuda.{owner.__name__}.synchronize"

    def synchronize(self: Any) -> Any:
        out = original(self)
        note_wait(op)
        return out

    return synchronize


__all__ = [
    "CopyFacts",
    "SimEvent",
    "SimStream",
    "StreamBook",
    "StreamContext",
    "StreamFacts",
    "install",
    "read_streams",
]
