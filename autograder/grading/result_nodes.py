"""The nodes of a results tree (:func:`course.results.encode`), read safely.

A submission's tree is not trusted: every node read here is validated first,
and nothing in it is executed, unpickled or imported. Used by
:mod:`autograder.grading.compare`.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

_MAX_ELEMENTS = 50_000_000


class BadResults(ValueError):
    """A submission's results are not a valid results tree."""


def show(node: Any) -> str:
    """A node in words, with its value where it has one (the submission's side,
    or the reference's where values may be shown)."""
    t = node.get("t") if isinstance(node, dict) else None
    if t == "device":
        return f"torch.device({node['v']!r})"
    if t in ("int", "str", "dtype"):
        return f"{node['v']!r} (a str)" if t == "str" else str(node["v"])
    if t == "float":
        return node["v"]
    if t == "bool":
        return str(node["v"])
    if t == "none":
        return "None"
    if t == "array":
        return f"{kind_name(node)} of shape {tuple(node['shape'])}"
    if t == "raised":
        return f"an exception {node['type']}"
    if t in ("list", "tuple"):
        return f"a {t} of {len(node['v'])}"
    if t == "dict":
        return f"a dict of {len(node['v'])} key(s)"
    if t == "object":
        return f"an object of type {node.get('type')}"
    return "something unreadable"


def kind_name(node: dict) -> str:
    """What kind of array an array node is, and where it lives (no values)."""
    kind = node.get("kind")
    if kind == "torch":
        return f"a tensor on {node.get('device')}"
    if kind == "device":
        return f"a device array on {node.get('device')}"
    if kind == "numpy-scalar":
        return f"a NumPy {np.dtype(node['dtype']).name} scalar"
    return "a NumPy array"


def array_of(node: dict) -> np.ndarray:
    """The array of a validated array node (raises BadResults)."""
    try:
        dtype = np.dtype(node["dtype"])
        shape = tuple(int(n) for n in node["shape"])
    except (TypeError, ValueError, KeyError) as exc:
        raise BadResults(f"bad array description: {exc}") from None
    if dtype.kind not in "biufc" or any(n < 0 for n in shape):
        raise BadResults("bad array description")
    count = math.prod(shape)
    if count > _MAX_ELEMENTS:
        raise BadResults("array too large")
    data = node.get("data")
    if not isinstance(data, str):
        raise BadResults("array without data")
    raw = base64.b64decode(data.encode("ascii"), validate=True)
    if len(raw) != count * dtype.itemsize:
        raise BadResults("array data does not match its shape and dtype")
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


def dtype_of(node: dict) -> np.dtype:
    """The NumPy dtype of an array node (raises BadResults)."""
    try:
        dtype = np.dtype(str(node.get("dtype")))
    except TypeError:
        raise BadResults("bad dtype") from None
    if dtype.kind not in "biufc":
        raise BadResults("bad dtype")
    return dtype


def number_of(node: dict) -> float:
    """The value of a float or int node (raises BadResults)."""
    try:
        return float(node["v"])
    except (TypeError, ValueError, KeyError):
        raise BadResults("bad number") from None


def numbers_of(node: dict) -> np.ndarray | None:
    """Any numeric node as an array (values only), or None."""
    t = node.get("t")
    if t in ("float", "int"):
        return np.asarray(number_of(node))
    if t == "bool":
        return np.asarray(bool(node.get("v")))
    if t == "array" and node.get("data") is not None:
        return array_of(node)
    return None


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with an
    ellipsis where it was cut (never in the middle of a word)."""
    text = str(text)
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "\u2026"
