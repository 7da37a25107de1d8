"""What a counter's timeline says of streams: each copy's stream, where it
was read, whether before a wait, for which streams it was recorded, and the
copies issued and waited for before each sync (the record is described in
:mod:`course.streams`, which also exports :func:`read_streams`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


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
