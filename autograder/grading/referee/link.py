"""The referee's end of the channel to one student kernel, and the proxies it hands out.

A :class:`Link` sends the agent's requests (:mod:`autograder.grading.referee.agent`)
and decodes its answers: a copy, or a :class:`Proxy` for an object that stays in
the kernel. While it waits for an answer it runs the test's own functions that
the student's code calls back (hooks), and only those: the kernel can call
what the test gave it, never read the referee's objects.

A proxy does in the kernel what Python asks of it (attributes, calls,
operators, iteration, ``with``), except what decides a check: its truth, its
equality and order are those of its value **as data**, described by the agent
and compared here (:meth:`Link.materialize`), never the object's own
``__bool__``, ``__eq__`` or ``__ne__``.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

from autograder.grading.referee import wire
from autograder.grading.referee.errors import KernelGone, TestTimeout, remote_exception
from autograder.grading.referee.proxy import Proxy
from autograder.grading.referee.writeback import write_back

#: Seconds the kernel gets to answer once it has been interrupted.
GRACE_S = 5.0


class Link:
    """One kernel's channel, as the referee uses it."""

    def __init__(
        self,
        channel: wire.Channel,
        interrupt: Any = None,
        kill: Any = None,
        store: Any = None,
    ):
        self.channel = channel
        self.store = store  # the control channel of the kernel's simulated GPU
        self.interrupt, self.kill = interrupt, kill
        self.deadline: float | None = None
        self.broken: str | None = None
        self._proxies: weakref.WeakValueDictionary[int, Proxy] = (
            weakref.WeakValueDictionary()
        )
        self._released: list[int] = []
        self._callbacks: dict[int, Any] = {}
        self._cids: dict[int, int] = {}
        self.requests = 0
        self._written: Any = None

    # The conversation.
    def begin(self, session: int, deadline: float) -> None:
        """Wait until the kernel's agent says hello for this test.

        Raises:
            KernelGone: it did not.
        """
        self._alive()
        self.deadline = deadline
        while True:
            try:
                message = self._receive()
            except wire.FrameTooLarge:
                continue  # skipped unread: written by no test, it costs none
            if message == ["hello", session]:
                return

    def end(self) -> None:
        """Tell the agent the test is over (nothing it says of the test is read)."""
        self.request(["q", "done"])

    def _alive(self) -> None:
        if self.broken:
            raise KernelGone(self.broken)

    def _receive(self) -> Any:
        try:
            return self.channel.recv(self.deadline)
        except TimeoutError:
            return self._late()
        except wire.ChannelClosed as exc:
            self.broken = f"the kernel stopped answering ({exc})"
            self.channel.close()  # the kernel's agent, if it waits, sees the end
            raise KernelGone(self.broken) from None

    def _late(self) -> Any:
        """Past the deadline: interrupt the kernel, take its answer, raise."""
        if self.interrupt is not None:
            self.interrupt()
        try:
            message = self.channel.recv(time.monotonic() + GRACE_S)
        except (TimeoutError, wire.ChannelClosed):
            self.broken = "the kernel did not stop when the test ran out of time"
            if self.kill is not None:
                self.kill()
            raise KernelGone(self.broken) from None
        self._pending_timeout = True
        return message

    def request(self, message: list[Any]) -> Any:
        """Send one request; run callbacks until its answer arrives.

        Raises:
            KernelGone, TestTimeout, or the kernel's own exception.
        """
        self._alive()
        if self._released and message[1] != "release":
            released, self._released = self._released, []
            self.request(["q", "release", released])
        self.requests += 1
        self._pending_timeout = False
        try:
            self.channel.send(message)
        except wire.ChannelClosed as exc:
            self.broken = str(exc)
            raise KernelGone(self.broken) from None
        while True:
            try:
                reply = self._receive()
            except wire.FrameTooLarge as exc:  # skipped unread: this request fails
                self._pending_timeout = False
                raise ValueError(str(exc)) from None
            if not isinstance(reply, list) or not reply:
                raise KernelGone(self._break("a malformed answer"))
            if reply[0] == "q":
                self._answer(reply)
                continue
            timed_out, self._pending_timeout = self._pending_timeout, False
            if timed_out:
                raise TestTimeout("it ran past the time a test may take")
            if reply[0] == "a" and len(reply) in (2, 3):
                self._written = reply[2] if len(reply) == 3 else None
                return self.into(reply[1])
            if reply[0] == "done" and message[1] == "done":
                return None
            if reply[0] == "e" and len(reply) == 2:
                raise remote_exception(reply[1])
            raise KernelGone(self._break("a malformed answer"))

    def _break(self, why: str) -> str:
        self.broken = f"the kernel sent {why}"
        self.channel.close()
        return self.broken

    def _answer(self, message: list[Any]) -> None:
        """The kernel calls a function of the test (nothing else is allowed)."""
        try:
            if (
                message[1] != "call"
                or len(message) not in (3, 4)
                or not isinstance(message[2], list)
                or len(message[2]) != 3
            ):
                raise PermissionError("the notebook may only call the test's functions")
            target, args, kwargs = (self.into(m) for m in message[2])
            if not (
                self._own(message[2][0])
                and isinstance(args, tuple)
                and isinstance(kwargs, dict)
            ):
                raise PermissionError("the notebook may only call the test's functions")
            with wire.grad_enabled(message[3] if len(message) > 3 else None):
                reply = ["a", self.out(target(*args, **kwargs))]
        except (KernelGone, TestTimeout):
            raise
        except Exception as exc:  # noqa: BLE001 - the kernel gets the error as data
            reply = [
                "e",
                {
                    "type": type(exc).__name__,
                    "module": "builtins" if type(exc).__module__ == "builtins" else "",
                    "message": str(exc)[:2000],
                },
            ]
        self.channel.send(reply)

    def _own(self, node: Any) -> bool:
        """Whether the kernel named one of the test's own objects (a handle)."""
        return (
            isinstance(node, list)
            and len(node) == 2
            and node[0] == "h"
            and int(node[1]) in self._callbacks
        )

    def call(self, op: str, *args: Any) -> Any:
        result = self.request(["q", op, [self.out(a) for a in args], wire.grad_mode()])
        written, self._written = self._written, None
        if written and op == "call" and len(args) == 3:
            self._write_back(args[1], args[2], written)
        return result

    def _write_back(self, positional: Any, named: Any, written: Any) -> None:
        """Put what the call changed in the test's data arguments back into
        them (:mod:`~autograder.grading.referee.writeback`)."""
        if not isinstance(written, list):
            raise KernelGone(self._break("a malformed answer"))
        for item in written:
            key, node = item if isinstance(item, list) and len(item) == 2 else (0, None)
            if type(key) is int and isinstance(positional, tuple):
                mine = positional[key] if 0 <= key < len(positional) else None
            elif type(key) is str and isinstance(named, dict):
                mine = named.get(key)
            else:
                mine = None
            if mine is not None and node is not None:
                write_back(mine, self.into(node))

    # Values.
    def into(self, node: Any) -> Any:
        """A node the agent sent, as a value here (never run, never imported)."""
        if not isinstance(node, list):
            if node is None or type(node) in (bool, int, float, str, bytes):
                return node
            if isinstance(node, dict):  # the agent's "done" answer
                return {str(k): self.into(v) for k, v in node.items()}
            raise ValueError("malformed value")
        if not node or not isinstance(node[0], str):
            raise ValueError("malformed value")
        tag, rest = node[0], node[1:]
        if tag == "r":
            return self._proxy(rest)
        if tag == "h":  # one of the test's own objects, as the test made it
            return self._callbacks[int(rest[0])]
        if tag in ("t", "l", "s", "f"):
            items = [self.into(v) for v in rest[0]]
            return {"t": tuple, "l": list, "s": set, "f": frozenset}[tag](items)
        if tag == "d":
            return {self.into(k): self.into(v) for k, v in rest[0]}
        if tag == "I":
            return int(str(rest[0])[:5000])
        if tag == "c":
            return complex(float(rest[0]), float(rest[1]))
        if tag == "a":
            return wire.array_from(*rest[:3])
        if tag == "n":
            return wire.array_from(rest[0], [], rest[1])[()]
        if tag == "T":
            return wire.tensor_from(node)
        if tag == "D":
            import torch

            return torch.device(wire.device_text(rest[0]))
        if tag == "Y":
            return _dtype(rest)
        if tag == "F":  # a handle in the kernel's store: its data, read there
            return self._from_store(rest[3])
        if tag == "missing":
            return _MISSING
        raise ValueError(f"malformed value {tag!r}")

    def _proxy(self, parts: list[Any]) -> Proxy:
        hid = int(parts[0])
        found = self._proxies.get(hid)
        if found is None:
            found = Proxy(self, hid, tuple(str(p) for p in parts[1:5]))
            self._proxies[hid] = found
            if hid in self._released:
                self._released.remove(hid)
            weakref.finalize(found, self._released.append, hid)
        return found

    def out(self, value: Any) -> Any:
        """A value of the test, as a node the agent reads (a copy, or a callback)."""
        if wire.is_scalar(value):
            return value
        kind = type(value)
        if kind is Proxy:
            if object.__getattribute__(value, "_course_link") is not self:
                raise TypeError("an object of another notebook's kernel")
            return ["h", object.__getattribute__(value, "_course_h")]
        if isinstance(value, int) and not isinstance(value, bool):
            return ["I", str(int(value))]
        if kind is complex:
            return ["c", value.real, value.imag]
        if isinstance(value, tuple):
            return ["t", [self.out(v) for v in value]]
        if isinstance(value, list):
            return ["l", [self.out(v) for v in value]]
        if isinstance(value, dict):
            return ["d", [[self.out(k), self.out(v)] for k, v in value.items()]]
        if isinstance(value, (set, frozenset)):
            return [
                "s" if isinstance(value, set) else "f",
                [self.out(v) for v in value],
            ]
        if kind is slice:
            return [
                "S",
                [self.out(value.start), self.out(value.stop), self.out(value.step)],
            ]
        if value is Ellipsis:
            return ["E"]
        if kind is range:
            return ["R", [value.start, value.stop, value.step]]
        if isinstance(value, BaseException) and type(value).__module__ == "builtins":
            return ["X", type(value).__name__, [self.out(a) for a in value.args]]
        if isinstance(value, float):
            return float(value)
        if isinstance(value, str):
            return str(value)
        node = wire.data_node(value, exact=False)
        if node is not None and node[0] == "F":
            return self._to_store(value)
        if node is not None:
            return node
        if isinstance(value, type):
            path = wire.type_path(value)
            if path[0] not in ("__main__", "builtins") or path[0] == "builtins":
                if wire.loaded_type(*path) is value:
                    return ["C", *path]
        module = getattr(value, "__spec__", None) and getattr(value, "__name__", None)
        if module and type(value).__name__ == "module":
            return ["M", str(module)]
        # any other object of the test (a hook, a marker): a handle the
        # kernel can pass around and call back, never read
        key = id(value)
        if key not in self._cids:
            self._cids[key] = len(self._callbacks) + 1
            self._callbacks[self._cids[key]] = value
        return ["r", self._cids[key]]

    # The simulated GPU: device arrays cross as handles in the kernel's store.
    def _from_store(self, key: Any) -> Any:
        from autograder.grading.referee.store import copy_from

        return copy_from(self.store, key)

    def _to_store(self, value: Any) -> list[Any]:
        from autograder.grading.referee.store import place

        return place(self.store, value)

    def materialize(self, value: Any) -> Any:
        """``value`` with every proxy in it replaced by its data where it has
        data (a copy described by the agent); other objects stay proxies."""
        kind = type(value)
        if kind is Proxy:
            if object.__getattribute__(value, "_course_link") is not self:
                return value
            return self.call("describe", value)
        if kind in (list, tuple, set, frozenset):
            return kind(self.materialize(v) for v in value)
        if kind is dict:
            return {k: self.materialize(v) for k, v in value.items()}
        return value


class _Missing:
    def __repr__(self) -> str:
        return "<not defined in the notebook>"


_MISSING = _Missing()


def _dtype(rest: list[Any]) -> Any:
    if rest and rest[0] == "numpy":
        return wire.checked_dtype(rest[1])
    import torch

    found = getattr(torch, str(rest[1]).removeprefix("torch."), None)
    if not isinstance(found, torch.dtype):
        raise ValueError("malformed dtype")
    return found


__all__ = ["KernelGone", "Link", "Proxy", "TestTimeout", "remote_exception"]
