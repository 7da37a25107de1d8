"""What a call did to the test's data: Python's by-reference arguments, across
the channel.

A test's lists, dicts, tuples, tensors and arrays reach the kernel as copies.
In Python the called function gets the caller's very objects, so a function
that changes its input in place (appends to a list, fills a dict, ``add_`` on
a tensor) changes the test's objects too. :func:`marks` notes, in the kernel,
each data argument of a call before it runs; :func:`changed` names those the
call changed; the referee puts each change back into its own object with
:func:`write_back`, in place. A test then sees what a caller in the student's
own notebook sees.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import numpy as np

from autograder.grading.referee.wire import DTYPE_KINDS, MAX_DEPTH

#: Node tags of the data a test sends as copies (lists, dicts, tuples, sets,
#: arrays, tensors, simulated device arrays).
DATA_TAGS = frozenset("ldtsaTF")


def _digest(data: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(data).view(np.uint8).ravel()).digest()


def fingerprint(value: Any, depth: int = 0) -> Any:
    """What changes when ``value`` or anything in it changes in place (or is
    replaced); never reads a device (a tensor's version counter, not its data)."""
    kind = type(value)
    if depth > MAX_DEPTH:
        return id(value)
    if kind in (list, tuple):
        return (kind.__name__, id(value), *(fingerprint(v, depth + 1) for v in value))
    if kind is dict:
        items = dict.items(value)
        return ("d", id(value), *((id(k), fingerprint(v, depth + 1)) for k, v in items))
    if kind is set:
        return ("s", id(value), frozenset(id(v) for v in value))
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return (
            "T",
            id(value),
            value._version,
            str(value.device),
            str(value.dtype),
            tuple(value.shape),
            value.requires_grad,
        )
    if (
        kind is np.ndarray
        and value.dtype.kind in DTYPE_KINDS
        and not value.dtype.fields
    ):
        return ("a", id(value), value.shape, value.dtype.str, _digest(value))
    fake = sys.modules.get("course.fakecupy")
    if fake is not None and kind is fake.DeviceArray:
        key = fake.DeviceArray._course_handle(value)
        try:  # the store's version of the array: it counts its writes
            version = value._link.request(["meta", key])[2]
        except Exception:  # noqa: BLE001 - freed, or no store: a new object
            version = -1
        return ("F", id(value), key, version)
    return id(value)


def marks(values: list[Any], keys: list[Any], nodes: list[Any]) -> list[Any]:
    """``(key, value, fingerprint)`` for each value that came as a data copy."""
    return [
        (key, value, fingerprint(value))
        for key, value, node in zip(keys, values, nodes)
        if isinstance(node, list) and node and node[0] in DATA_TAGS
    ]


def changed(marked: list[Any]) -> list[tuple[Any, Any]]:
    """``(key, value)`` for each marked value the call changed."""
    return [(k, value) for k, value, before in marked if fingerprint(value) != before]


def write_back(mine: Any, theirs: Any, top: bool = True) -> Any:
    """Make the test's object ``mine`` hold what the kernel's copy ``theirs``
    holds after the call; return the object the test should hold there.

    Containers change in place, item by item. A tensor or array changes in
    place only as an argument itself (``top``): inside a container the new
    value takes the old one's place, as ``batch[key] = t.to(device)`` does (an
    in-place change of a tensor held in a container reaches the container, not
    another name the test kept for that tensor)."""
    kind = type(mine)
    if kind is list and isinstance(theirs, list):
        mine[:] = [_merged(mine, i, v) for i, v in enumerate(theirs)]
        return mine
    if kind is dict and isinstance(theirs, dict):
        old = dict(mine)
        mine.clear()
        for key, value in theirs.items():
            mine[key] = write_back(old[key], value, False) if key in old else value
        return mine
    if kind is tuple and isinstance(theirs, tuple) and len(theirs) == len(mine):
        for a, b in zip(mine, theirs):
            write_back(a, b, False)  # a tuple's own items stay; theirs may change
        return mine
    if kind is set and isinstance(theirs, set):
        mine.clear()
        mine.update(theirs)
        return mine
    if not top:
        return theirs
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(mine, torch.Tensor):
        if isinstance(theirs, torch.Tensor):
            with torch.no_grad():
                if (mine.shape, mine.dtype, mine.device) == (
                    theirs.shape,
                    theirs.dtype,
                    theirs.device,
                ) and mine.device.type != "meta":
                    mine.copy_(theirs)
                else:
                    mine.data = theirs.detach()
            if theirs.requires_grad != mine.requires_grad and mine.is_leaf:
                mine.requires_grad_(theirs.requires_grad)
        return mine
    if type(mine) is np.ndarray and isinstance(theirs, np.ndarray):
        if mine.shape == theirs.shape and mine.flags.writeable:
            np.copyto(mine, theirs, casting="unsafe")
        return mine
    fake = sys.modules.get("course.fakecupy")
    if (
        fake is not None
        and kind is fake.DeviceArray
        and isinstance(theirs, fake.DeviceArray)
    ):
        if mine.shape == theirs.shape:
            mine[...] = theirs  # in this process's store, device to device
        return mine
    return theirs


def _merged(old: list[Any], i: int, value: Any) -> Any:
    return write_back(old[i], value, False) if i < len(old) else value


__all__ = ["DATA_TAGS", "changed", "fingerprint", "marks", "write_back"]
