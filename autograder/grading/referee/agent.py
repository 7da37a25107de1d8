"""The referee's agent, in the student's kernel: it does what the tests ask.

The tests run in the grader's process (:mod:`autograder.grading.referee.session`).
When one begins, the grading client asks the kernel to run :func:`serve`; the
agent then answers the referee's requests on the socket the kernel inherited
(``COURSE_REFEREE_FD``), on the kernel's main thread, until the test is done:
look up a name of the notebook, read or set an attribute, call, apply an
operator, or describe a value as data (:mod:`autograder.grading.referee.wire`).
Objects stay here and cross as references; a function of the test that the
student's code calls (a hook) is a :class:`Callback`, which asks the referee
to run it.

This module holds no test, no expected value and no secret: everything in this
process belongs to the student, and nothing it reports is trusted beyond being
the student's answer. Before each request it puts back the course's modules as
they were before the notebook ran (:mod:`autograder.grading.referee.pins`,
imported with this module), and the counters a test uses are made and read
through what was bound then.
"""

from __future__ import annotations

import importlib
import os
import socket
import sys
import threading
from typing import Any

from autograder.grading.referee import pins, wire, writeback
from autograder.grading.referee.launches import watch_launches
from autograder.grading.referee.ops import OPS, error_info

#: The variable that names the kernel's end of the channel.
FD_ENV = "COURSE_REFEREE_FD"


class Callback:
    """A function of the test, called from the student's code: the referee runs it."""

    __slots__ = ("_cid", "__weakref__")

    def __init__(self, cid: int) -> None:
        self._cid = cid

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return AGENT.call_back(self._cid, args, kwargs)

    def __repr__(self) -> str:
        return f"<a function of the test #{self._cid}>"


class Agent:
    """The kernel's side of the channel (one per kernel: :data:`AGENT`)."""

    def __init__(self) -> None:
        self.channel: wire.Channel | None = None
        self.objects: dict[int, Any] = {}
        self._ids: dict[int, int] = {}
        self._next = 1
        self.serving = False
        self._thread: int | None = None
        self._callbacks: dict[int, Callback] = {}

    def _connect(self) -> wire.Channel:
        if self.channel is None:
            fd = int(os.environ.get(FD_ENV, "-1"))
            if fd < 0:
                raise RuntimeError("this kernel has no referee channel")
            sock = socket.socket(fileno=fd)
            sock.set_inheritable(False)
            self.channel = wire.Channel(sock)
        return self.channel

    # Values.
    def ref(self, value: Any) -> int:
        key = id(value)
        hid = self._ids.get(key)
        if hid is None or self.objects.get(hid) is not value:
            hid = self._next
            self._next += 1
            self.objects[hid] = value
            self._ids[key] = hid
        return hid

    def out(self, value: Any, copy: bool = False, depth: int = 0) -> Any:
        """``value`` as a node (see :mod:`~autograder.grading.referee.wire`)."""
        if wire.is_scalar(value):
            return value
        kind = type(value)
        if depth > wire.MAX_DEPTH:
            return self._reference(value)
        if kind is int:
            return ["I", str(value)]
        if kind is complex:
            return ["c", value.real, value.imag]
        if kind is Callback:
            return ["h", value._cid]
        torch = sys.modules.get("torch")
        if kind is tuple or (torch is not None and kind is torch.Size):
            return ["t", [self.out(v, copy, depth + 1) for v in value]]
        if copy:
            node = self._copy(value, kind, depth)
            if node is not None:
                return node
        return self._reference(value)

    def _reference(self, value: Any) -> list[Any]:
        node = ["r", self.ref(value), *wire.type_path(type(value))]
        if isinstance(value, type):
            node += list(wire.type_path(value))
        return node

    def _copy(self, value: Any, kind: type, depth: int) -> Any:
        if kind is list:
            return ["l", [self.out(v, True, depth + 1) for v in value]]
        if kind is dict or (
            isinstance(value, dict) and kind.__module__ == "collections"
        ):  # OrderedDict
            return [
                "d",
                [
                    [self.out(k, True, depth + 1), self.out(v, True, depth + 1)]
                    for k, v in dict.items(value)
                ],
            ]
        if isinstance(value, tuple) and hasattr(kind, "_fields"):
            # a named tuple is a tuple: its values, as one
            return ["t", [self.out(v, True, depth + 1) for v in value]]
        if kind in (set, frozenset):
            tag = "s" if kind is set else "f"
            return [tag, [self.out(v, True, depth + 1) for v in value]]
        return wire.data_node(value)

    def into(self, node: Any) -> Any:
        """A node the referee sent, as a value here."""
        if not isinstance(node, list):
            return node
        tag, rest = node[0], node[1:]
        if tag == "h":
            if rest[0] not in self.objects:
                raise RuntimeError("the test used an object this kernel released")
            return self.objects[rest[0]]
        if tag == "r":  # one of the test's objects: the same stand-in each time
            cid = int(rest[0])
            found = self._callbacks.get(cid)
            if found is None:
                found = self._callbacks[cid] = Callback(cid)
            return found
        if tag in ("t", "l", "s", "f"):
            items = [self.into(v) for v in rest[0]]
            return {"t": tuple, "l": list, "s": set, "f": frozenset}[tag](items)
        if tag == "d":
            return {self.into(k): self.into(v) for k, v in rest[0]}
        if tag == "I":
            return int(rest[0])
        if tag == "c":
            return complex(rest[0], rest[1])
        if tag == "a":
            return wire.array_from(*rest)
        if tag == "n":
            return wire.array_from(rest[0], [], rest[1])[()]
        if tag == "T":
            return wire.tensor_from(node)
        if tag == "D":
            import torch

            return torch.device(wire.device_text(rest[0]))
        if tag == "Y":
            if rest[0] == "numpy":
                return wire.checked_dtype(rest[1])
            import torch

            return getattr(torch, str(rest[1]).removeprefix("torch."))
        if tag == "F":  # placed in this kernel's store by the referee
            from course.fakecupy import DeviceArray
            from course.simlink import Ref

            ref = Ref(bytes(rest[3]), list(rest[1]), str(rest[0]), "array")
            return DeviceArray._from_ref(ref)
        if tag == "C":
            found: Any = importlib.import_module(rest[0])
            for part in str(rest[1]).split("."):
                found = getattr(found, part)
            return found
        if tag == "M":
            return importlib.import_module(rest[0])
        if tag == "S":
            return slice(*(self.into(v) for v in rest[0]))
        if tag == "E":
            return Ellipsis
        if tag == "R":
            return range(*(int(v) for v in rest[0]))
        if tag == "X":
            import builtins

            kind = getattr(builtins, str(rest[0]), None)
            if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                raise ValueError("not a built-in exception")
            return kind(*(self.into(v) for v in rest[1]))
        raise ValueError(f"unknown node {tag!r}")

    # Requests.
    def handle(self, message: list[Any]) -> list[Any]:
        """One request of the referee: ``["a", node]`` or ``["e", info]``."""
        op = message[1]
        try:
            _restore()  # the course's names, as before any student code ran
            if op == "get":
                namespace = _user_namespace()
                found = [
                    self.out(namespace[n]) if n in namespace else ["missing"]
                    for n in message[2]
                ]
                for module, attr in message[3] if len(message) > 3 else []:
                    found.append(self.out(_imported(module, attr)))
                return ["a", ["l", found]]
            if op == "release":
                for hid in message[2]:
                    value = self.objects.pop(hid, None)
                    if value is not None and self._ids.get(id(value)) == hid:
                        del self._ids[id(value)]
                return ["a", None]
            args = [self.into(a) for a in message[2]]
            if op == "describe":
                return ["a", self.out(args[0], copy=True)]
            marked = _call_marks(op, args, message[2])
            run = _OPS[op]
            with wire.grad_enabled(message[3] if len(message) > 3 else None):
                result = run(*args)
            reply = ["a", self.out(result)]
            if marked:
                found = writeback.changed(marked)
                if found:  # the test's data, changed in place: it gets them back
                    reply.append([[k, self.out(v, copy=True)] for k, v in found])
            return reply
        except BaseException as exc:  # noqa: BLE001 - every failure is the test's data
            return ["e", error_info(exc)]

    def request(self, message: list[Any]) -> Any:
        """Send a request to the referee; answer its requests until the reply."""
        channel = self._connect()
        channel.send(message)
        while True:
            reply = channel.recv()
            if reply[0] == "q":
                if reply[1] == "done":
                    raise RuntimeError("the test ended while your code waited for it")
                channel.send(self.handle(reply))
                continue
            if reply[0] == "a":
                return self.into(reply[1])
            raise _raised(reply[1])

    def call_back(self, cid: int, args: tuple, kwargs: dict) -> Any:
        if not self.serving or threading.get_ident() != self._thread:
            raise RuntimeError(
                "this function belongs to a test that has finished (or was called "
                "from another thread); it cannot run any more"
            )
        torch = sys.modules.get("torch")
        mode = None if torch is None else bool(torch.is_grad_enabled())
        return self.request(
            ["q", "call", [["h", cid], self.out(args), self.out_dict(kwargs)], mode]
        )

    def out_dict(self, kwargs: dict) -> list[Any]:
        return ["d", [[k, self.out(v)] for k, v in kwargs.items()]]

    def serve(self, session: int) -> None:
        """Answer the referee until it says the test is done."""
        channel = self._connect()
        self.serving, self._thread = True, threading.get_ident()
        watch = watch_launches()
        try:
            channel.send(["hello", session])
            while True:
                try:
                    message = channel.recv()
                except KeyboardInterrupt:
                    continue
                if not (isinstance(message, list) and message and message[0] == "q"):
                    raise wire.ChannelClosed("a malformed request")
                if message[1] == "done":
                    channel.send(["done"])
                    return
                try:
                    reply = self.handle(message)
                except KeyboardInterrupt as exc:
                    reply = ["e", error_info(exc)]
                try:
                    channel.send(reply)
                except ValueError as exc:  # over the frame limit: say so instead
                    channel.send(["e", error_info(exc)])
        finally:
            self.serving = False
            if watch is not None:
                watch()


def _call_marks(op: str, args: list[Any], nodes: list[Any]) -> list[Any]:
    """A call's data arguments, marked before it runs (:mod:`.writeback`)."""
    if op != "call" or len(args) != 3 or len(nodes) != 3:
        return []
    _, positional, named = args
    if not (isinstance(positional, tuple) and isinstance(named, dict)):
        return []
    try:
        keys = [*range(len(positional)), *named]
        values = [*positional, *named.values()]
        found = [*nodes[1][1], *(v for _, v in nodes[2][1])]
        return writeback.marks(values, keys, found)
    except (IndexError, TypeError, ValueError):
        return []


def _raised(info: Any) -> BaseException:
    text = info.get("message", "") if isinstance(info, dict) else str(info)
    name = info.get("type", "Error") if isinstance(info, dict) else "Error"
    kind = getattr(
        __builtins__ if isinstance(__builtins__, dict) else sys.modules["builtins"],
        str(name),
        None,
    )
    if isinstance(kind, type) and issubclass(kind, Exception):
        return kind(text)
    return RuntimeError(f"{name}: {text}")


def _imported(module: str, attr: Any) -> Any:
    """What ``import module`` or ``from module import attr`` binds."""
    found = importlib.import_module(module)
    if attr is None:
        return found
    try:
        return getattr(found, attr)
    except AttributeError:
        return importlib.import_module(f"{module}.{attr}")


def _user_namespace() -> dict[str, Any]:
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        return shell.user_ns
    return sys.modules["__main__"].__dict__


#: Every operation, bound as this module loads (before any student code): the
#: pinned counters' before the rest, so no entry added later takes their place.
_OPS = {**OPS, **pins.OPS}
_restore = pins.restore
AGENT = Agent()


def serve(session: int) -> None:
    """What the grading client runs in the kernel when a test begins."""
    AGENT.serve(session)


__all__ = ["AGENT", "FD_ENV", "Callback", "OPS", "serve"]
