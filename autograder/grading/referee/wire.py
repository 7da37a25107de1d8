"""The referee's channel: framed msgpack messages, and values as data or references.

Both ends use this module: the referee (the grader's process, which runs the
tests) and the agent (:mod:`autograder.grading.referee.agent`, in the student's
kernel). A value crosses the channel in one of three ways:

* **a copy**: ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
  ``bytes`` and exact tuples of values always; with ``copy=True`` (what the
  referee asks for when a check or a result needs the value) also lists, dicts,
  sets, NumPy arrays and scalars, torch tensors, devices, dtypes and the
  simulated device arrays of :mod:`course.fakecupy`;
* **a reference** to an object that stays in the process that made it: a
  ``("r", id, module, qualname)`` node, the id one the sender issued (the
  receiver holds a stand-in: a proxy in the referee, a callback in the agent);
* **the receiver's own object**, given back: ``("h", id)``.

Nothing received is ever unpickled, imported or run: a copy is rebuilt from its
bytes with a checked dtype; a type named by the agent is looked up only among
the modules the referee has already imported.
"""

from __future__ import annotations

import re
import socket
import struct
import sys
import time
from typing import Any

import msgpack
import numpy as np

#: Largest frame either side sends or accepts (bytes). A larger one is
#: skipped unread (never decoded) and its request fails alone
#: (:class:`FrameTooLarge`); the channel goes on.
MAX_FRAME = 64 * 1024 * 1024
_HEADER = struct.Struct(">I")
_INT64 = (-(2**63), 2**63 - 1)
_DEVICE = re.compile(r"^[a-z]+(:\d{1,3})?$")
DTYPE_KINDS = "biufc"
#: How deep a value is copied or compared before the rest stays a reference.
MAX_DEPTH = 64


class ChannelClosed(ConnectionError):
    """The other end went away (its process ended or broke the protocol)."""


class FrameTooLarge(ValueError):
    """A frame over :data:`MAX_FRAME` arrived: skipped, never decoded."""

    def __init__(self, size: int) -> None:
        super().__init__(
            f"a message of {size / 2**20:,.0f} MiB, over the "
            f"{MAX_FRAME / 2**20:,.0f} MiB a message may hold, was left unread: "
            "the test copies the values it checks, so return the result the task "
            "asks for, not a large object (or a smaller array)"
        )
        self.size = size


class Channel:
    """Length-prefixed msgpack frames over a connected stream socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()
        self._skipping = 0  # bytes of a refused frame still to drop

    def send(self, message: Any) -> None:
        body = msgpack.packb(message, use_bin_type=True)
        if len(body) > MAX_FRAME:
            raise FrameTooLarge(len(body))
        try:
            self.sock.sendall(_HEADER.pack(len(body)) + body)
        except OSError as exc:
            raise ChannelClosed(f"the channel closed while sending: {exc}") from exc

    def _fill(self, size: int, deadline: float | None) -> None:
        while len(self._buffer) < size:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no answer in time")
                self.sock.settimeout(left)
            else:
                self.sock.settimeout(None)
            try:
                chunk = self.sock.recv(max(65536, size - len(self._buffer)))
            except TimeoutError as exc:
                raise TimeoutError("no answer in time") from exc
            except OSError as exc:
                raise ChannelClosed(f"the channel broke: {exc}") from exc
            if not chunk:
                raise ChannelClosed("the other end closed the channel")
            self._buffer += chunk

    def _skip(self, deadline: float | None) -> None:
        """Drop the rest of a refused frame as it comes (never held whole);
        a deadline that passes leaves the rest for the next call."""
        while self._skipping > 0:
            if not self._buffer:
                self._fill(1, deadline)
            taken = min(self._skipping, len(self._buffer))
            del self._buffer[:taken]
            self._skipping -= taken

    def recv(self, deadline: float | None = None) -> Any:
        """The next message; ``deadline`` (``time.monotonic()``) or wait for ever.

        Raises:
            TimeoutError: nothing complete arrived by the deadline.
            FrameTooLarge: a frame over :data:`MAX_FRAME`, skipped unread.
            ChannelClosed: the other end closed, or sent a malformed frame.
        """
        self._skip(deadline)  # what is left of a frame refused before
        self._fill(_HEADER.size, deadline)
        (size,) = _HEADER.unpack_from(self._buffer)
        if size > MAX_FRAME:
            del self._buffer[: _HEADER.size]
            self._skipping = size
            self._skip(deadline)
            raise FrameTooLarge(size)
        self._fill(_HEADER.size + size, deadline)
        body = bytes(self._buffer[_HEADER.size : _HEADER.size + size])
        del self._buffer[: _HEADER.size + size]
        try:
            return msgpack.unpackb(body, raw=False, strict_map_key=False)
        except Exception as exc:  # noqa: BLE001 - any malformed frame
            raise ChannelClosed(
                f"the other end sent a malformed message: {exc}"
            ) from None

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


# Values.


def checked_dtype(text: Any) -> np.dtype:
    """A NumPy dtype from its ``.str``, numbers and booleans only.

    Raises:
        ValueError: anything else (object, strings, structured, void).
    """
    if not isinstance(text, str) or len(text) > 8:
        raise ValueError(f"not a dtype: {text!r}")
    dtype = np.dtype(text)
    if dtype.kind not in DTYPE_KINDS or dtype.fields is not None:
        raise ValueError(f"not a numeric dtype: {text!r}")
    return dtype


def array_from(dtype: Any, shape: Any, data: Any) -> np.ndarray:
    """An array rebuilt from a copy node's parts (checked, never executed)."""
    kind = checked_dtype(dtype)
    if not (
        isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)
    ):
        raise ValueError("malformed array shape")
    if not isinstance(data, bytes):
        raise ValueError("malformed array data")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if count * kind.itemsize != len(data):
        raise ValueError("array data does not match its shape")
    return np.frombuffer(data, dtype=kind).reshape(shape).copy()


def device_text(value: Any) -> str:
    """A device name as ``cpu``, ``cuda:0``, ``meta`` (checked)."""
    if not isinstance(value, str) or not _DEVICE.match(value):
        raise ValueError(f"not a device: {value!r}")
    return value


def type_path(kind: type) -> tuple[str, str]:
    """``(module, qualname)`` of a type, read from the type itself."""
    module = type.__getattribute__(kind, "__module__")
    qualname = type.__getattribute__(kind, "__qualname__")
    return (
        module if isinstance(module, str) else "?",
        qualname if isinstance(qualname, str) else "?",
    )


def loaded_type(module: Any, qualname: Any) -> Any:
    """The type ``module.qualname`` if that module is already imported here
    (nothing is imported on a peer's word); else None."""
    if not (isinstance(module, str) and isinstance(qualname, str)):
        return None
    found = sys.modules.get(module)
    for part in qualname.split("."):
        if found is None or part.startswith("<"):
            return None
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def is_scalar(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return _INT64[0] <= value <= _INT64[1]
    return kind in (bool, float, str, bytes) or value is None


def tensor_parts(value: Any) -> list[Any]:
    """A torch tensor as a copy node."""
    device = value.device
    where = (
        "meta"
        if device.type == "meta"
        else ("cpu" if device.type == "cpu" else f"{device.type}:{device.index or 0}")
    )
    dtype = str(value.dtype)
    if where == "meta":
        return [
            "T",
            dtype,
            list(value.shape),
            where,
            bool(value.requires_grad),
            None,
            None,
        ]
    host = value.detach().cpu()
    if dtype == "torch.bfloat16":
        host = host.float()
    data = np.ascontiguousarray(host.numpy())
    return [
        "T",
        dtype,
        list(value.shape),
        where,
        bool(value.requires_grad),
        data.dtype.str,
        data.tobytes(),
    ]


def tensor_from(node: list[Any]) -> Any:
    """A torch tensor from :func:`tensor_parts`'s node."""
    import torch

    _, dtype, shape, where, grad, host_dtype, data = node
    if not (isinstance(dtype, str) and dtype.startswith("torch.")):
        raise ValueError(f"not a torch dtype: {dtype!r}")
    kind = getattr(torch, dtype.removeprefix("torch."), None)
    if not isinstance(kind, torch.dtype):
        raise ValueError(f"not a torch dtype: {dtype!r}")
    where = device_text(where)
    if where == "meta":
        tensor = torch.empty([int(n) for n in shape], dtype=kind, device="meta")
    else:
        tensor = torch.from_numpy(array_from(host_dtype, shape, data)).to(kind)
        if where != "cpu" and torch.device(where).type == "cuda":
            if torch.cuda.is_available():
                tensor = tensor.to(where)
    if grad and (tensor.is_floating_point() or tensor.is_complex()):
        tensor.requires_grad_(True)
    return tensor


def grad_mode() -> bool | None:
    """This process's grad mode, which each call carries (None: no torch here)."""
    torch = sys.modules.get("torch")
    return None if torch is None else bool(torch.is_grad_enabled())


def grad_enabled(mode: Any) -> Any:
    """A context that runs under the caller's grad mode (none: as it is)."""
    import contextlib

    torch = sys.modules.get("torch")
    if torch is None or not isinstance(mode, bool):
        return contextlib.nullcontext()
    return torch.set_grad_enabled(mode)


def data_node(value: Any, exact: bool = True) -> Any:
    """A copy node for an array, a NumPy scalar or dtype, a tensor, a device, a
    torch dtype or a simulated device array; None for anything else.
    ``exact``: only those types themselves, not subclasses (the agent's side,
    where a subclass may change what its data reads as)."""

    def kind_of(*types: type) -> bool:
        return type(value) in types if exact else isinstance(value, types)

    if kind_of(np.ndarray) and value.dtype.kind in DTYPE_KINDS:
        if value.dtype.fields:
            return None
        data = np.ascontiguousarray(value)
        return ["a", data.dtype.str, list(data.shape), data.tobytes()]
    if isinstance(value, np.generic) and value.dtype.kind in DTYPE_KINDS:
        return ["n", value.dtype.str, value.tobytes()]
    if isinstance(value, np.dtype):
        return ["Y", "numpy", value.str]
    torch = sys.modules.get("torch")
    if torch is not None:
        if kind_of(torch.Tensor, torch.nn.Parameter):
            return tensor_parts(value)
        if type(value) is torch.device:
            return ["D", str(value)]
        if type(value) is torch.dtype:
            return ["Y", "torch", str(value)]
    fake = sys.modules.get("course.fakecupy")
    if fake is not None and kind_of(fake.DeviceArray):
        # A handle in this side's store: never the data (the referee reads
        # that from the store itself).
        array = value
        if array.dtype.kind in DTYPE_KINDS:
            return [
                "F",
                array.dtype.str,
                list(array.shape),
                array.device_name,
                fake.DeviceArray._course_handle(array),
            ]
    return None


__all__ = [
    "MAX_DEPTH",
    "MAX_FRAME",
    "FrameTooLarge",
    "Channel",
    "ChannelClosed",
    "DTYPE_KINDS",
    "array_from",
    "checked_dtype",
    "device_text",
    "is_scalar",
    "loaded_type",
    "tensor_from",
    "tensor_parts",
    "type_path",
]
