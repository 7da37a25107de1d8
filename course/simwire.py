"""The codec of the simulated GPU's store, and its frames.

A request and its answer are msgpack frames of plain data (:func:`encode`,
:func:`decode`, :func:`send`, :func:`receive`); nothing is ever unpickled.
Both sides read it: the student's process through :mod:`course.simlink`, and
the store (:mod:`course.simstore`), which imports nothing of that side.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

import msgpack
import numpy as np

_HEADER = struct.Struct("!I")
MAX_FRAME = 1 << 30


class StoreError(RuntimeError):
    """The store could not be reached (it stopped, or the channel broke)."""


class Ref:
    """A handle the store issued: an array (``shape``, ``dtype``) or another
    object (a random generator), ``shape`` None."""

    __slots__ = ("key", "shape", "dtype", "kind")

    def __init__(self, key: bytes, shape: Any, dtype: str, kind: str) -> None:
        self.key, self.shape, self.dtype, self.kind = key, shape, dtype, kind


def encode(value: Any) -> Any:
    """A value as plain data: every node a list tagged at its head, or a
    number, a string or None."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, Ref):
        return ["h", value.key]
    handle = getattr(type(value), "_course_handle", None)
    if handle is not None:  # a device array, a device object
        return ["h", handle(value)]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return ["c", value.real, value.imag]
    if isinstance(value, np.generic):
        return ["n", value.dtype.str, value.tobytes()]
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError("arrays of Python objects cannot go to the device")
        return ["a", value.dtype.str, list(value.shape), value.tobytes(order="C")]
    if isinstance(value, tuple):
        return ["t", [encode(v) for v in value]]
    if isinstance(value, list):
        return ["l", [encode(v) for v in value]]
    if isinstance(value, dict):
        return ["d", [[encode(k), encode(v)] for k, v in value.items()]]
    if isinstance(value, slice):
        return ["s", [encode(value.start), encode(value.stop), encode(value.step)]]
    if value is Ellipsis:
        return ["e"]
    if isinstance(value, np.dtype):
        return ["y", value.str]
    if isinstance(value, type) and issubclass(value, np.generic):
        return ["y", np.dtype(value).str]
    if value in (float, int, bool, complex):
        return ["p", value.__name__]
    raise TypeError(
        f"{type(value).__name__} cannot go to the simulated GPU: it takes device "
        "arrays, numbers, strings, dtypes, slices and lists or tuples of them."
    )


def array_from(dtype: str, shape: list[int], data: bytes) -> np.ndarray:
    """A writable array from its wire form."""
    kind = np.dtype(dtype)
    if kind.hasobject:
        raise TypeError("arrays of Python objects cannot cross")
    out = np.frombuffer(data, dtype=kind).copy()
    return out.reshape([int(n) for n in shape])


def decode(node: Any, ref: Any) -> Any:
    """The inverse of :func:`encode`; ``ref(key)`` answers a handle."""
    if not isinstance(node, list):
        return node
    tag, rest = node[0], node[1:]
    if tag == "h":
        return ref(rest[0])
    if tag == "a":
        return array_from(*rest)
    if tag == "n":
        return array_from(rest[0], [], rest[1])[()]
    if tag == "t":
        return tuple(decode(v, ref) for v in rest[0])
    if tag == "l":
        return [decode(v, ref) for v in rest[0]]
    if tag == "d":
        return {decode(k, ref): decode(v, ref) for k, v in rest[0]}
    if tag == "s":
        return slice(*(decode(v, ref) for v in rest[0]))
    if tag == "e":
        return Ellipsis
    if tag == "c":
        return complex(rest[0], rest[1])
    if tag == "y":
        return np.dtype(rest[0])
    if tag == "p":
        return {"float": float, "int": int, "bool": bool, "complex": complex}[rest[0]]
    if tag == "r":  # the store's answer: a new handle and what it holds
        return Ref(bytes(rest[0]), rest[1], rest[2], rest[3])
    raise ValueError(f"malformed value {tag!r}")


def send(sock: socket.socket, message: Any) -> None:
    body = msgpack.packb(message, use_bin_type=True)
    sock.sendall(_HEADER.pack(len(body)) + body)


def receive(sock: socket.socket) -> Any:
    """One frame; EOFError when the other end has closed."""
    head = _exactly(sock, _HEADER.size)
    (size,) = _HEADER.unpack(head)
    if size > MAX_FRAME:
        raise ValueError("a frame larger than the store takes")
    return msgpack.unpackb(_exactly(sock, size), raw=False, strict_map_key=False)


def _exactly(sock: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("the channel closed")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


__all__ = [
    "MAX_FRAME",
    "Ref",
    "StoreError",
    "array_from",
    "decode",
    "encode",
    "receive",
    "send",
]
