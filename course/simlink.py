"""The wire to the simulated GPU's store (:mod:`course.simstore`), and its codec.

Device arrays of :mod:`course.fakecupy` hold no data: only a *handle*, a
128-bit random id the store issued, plus the shape and dtype (host-side
metadata, as CuPy keeps them). Every operation, copy and read is a request to
the store, which counts it. A request and its answer are msgpack frames of
plain data (:func:`encode`, :func:`decode`); nothing is ever unpickled.

Where the store lives:

* **grading**: in a process of the grader's, outside the student's kernel. The
  kernel inherits one end of a socket pair (``COURSE_STORE_FD``) and holds
  nothing else; the referee reads the counts through a control channel of its
  own, which the kernel never holds.
* **anywhere else** (a lesson on a laptop, a test, the referee's own copies):
  in this process, answered by the same :class:`~course.simstore.Store`
  through the same codec, so its rules and counts are the same.
"""

from __future__ import annotations

import os
import socket
import threading
from typing import Any

import msgpack
import numpy as np

# The codec and the frames, one layer down (the store reads them too); its
# names are this module's as well.
from course.simwire import (
    MAX_FRAME,
    Ref,
    StoreError,
    array_from,
    decode,
    encode,
    receive,
    send,
)

#: The variable that names the kernel's end of its store's channel.
STORE_FD_ENV = "COURSE_STORE_FD"


class Connection:
    """This process's way to a store: ``request(message) -> answer``.

    ``frees``: handles this process dropped, sent with the next request."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.frees: list[bytes] = []

    def request(self, message: list[Any]) -> Any:
        with self.lock:
            frees, self.frees = self.frees, []
            reply = self._exchange([frees, *message])
        if reply[0] == "ok":
            return reply[1]
        raise _error(reply)

    def _exchange(self, message: list[Any]) -> Any:
        raise NotImplementedError


class LocalConnection(Connection):
    """A store in this process, through the same codec as a remote one (this
    process holds its control too: nothing here is a grader's secret)."""

    def __init__(self) -> None:
        super().__init__()
        from course.simstore import Store

        self.store = Store()

    def _exchange(self, message: list[Any]) -> Any:
        body = msgpack.packb(message, use_bin_type=True)
        inner = msgpack.unpackb(body, raw=False, strict_map_key=False)
        reply = self.store.handle(inner, control=True)
        body = msgpack.packb(reply, use_bin_type=True)
        return msgpack.unpackb(body, raw=False, strict_map_key=False)


class SocketConnection(Connection):
    """A store in another process, over a connected stream socket."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock

    def _exchange(self, message: list[Any]) -> Any:
        try:
            send(self.sock, message)
            return receive(self.sock)
        except (OSError, EOFError) as exc:
            raise StoreError(
                f"the simulated GPU's store stopped answering ({exc}); restart "
                "the kernel to get a new one."
            ) from exc


_ERRORS = {
    "TypeError": TypeError,
    "ValueError": ValueError,
    "IndexError": IndexError,
    "KeyError": KeyError,
    "AttributeError": AttributeError,
    "ZeroDivisionError": ZeroDivisionError,
    "FloatingPointError": FloatingPointError,
    "MemoryError": MemoryError,
    "NotImplementedError": NotImplementedError,
    "OverflowError": OverflowError,
}


def _error(reply: list[Any]) -> BaseException:
    kind = _ERRORS.get(str(reply[1]), RuntimeError)
    if str(reply[1]) == "LinAlgError":
        kind = np.linalg.LinAlgError
    return kind(str(reply[2]))


_CONNECTION: Connection | None = None
_LOCK = threading.Lock()


def connection() -> Connection:
    """This process's store: the inherited channel where one is named
    (``COURSE_STORE_FD``), else one in this process."""
    global _CONNECTION
    if _CONNECTION is None:
        with _LOCK:
            if _CONNECTION is None:
                fd = int(os.environ.get(STORE_FD_ENV, "-1") or -1)
                if fd >= 0:
                    sock = socket.socket(fileno=fd)
                    sock.set_inheritable(False)
                    _CONNECTION = SocketConnection(sock)
                else:
                    _CONNECTION = LocalConnection()
    return _CONNECTION


__all__ = [
    "MAX_FRAME",
    "Connection",
    "LocalConnection",
    "Ref",
    "STORE_FD_ENV",
    "SocketConnection",
    "StoreError",
    "array_from",
    "connection",
    "decode",
    "encode",
    "receive",
    "send",
]
