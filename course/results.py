"""Results as data: what a graded test cell sends back to the grader.

A hidden test runs your functions on inputs it chose and collects what they
returned into a dictionary, then calls :func:`submit`. ``submit`` turns the
results into plain data (JSON, with array bytes in base64) and shows them as one
output of the MIME type :data:`MIME`. The grader reads that output and compares
it with the reference implementation's results *in its own process*: no
reference code or expected value ever runs in, or is sent to, your kernel.

What can be sent: ``None``, ``bool``, ``int``, ``float``, ``str``, lists,
tuples and dictionaries of them, NumPy arrays and scalars, torch tensors (on any
device, ``meta`` included: shape and dtype only), CuPy arrays and the simulated
device arrays of :mod:`course.fakecupy`, ``torch.device``, dtypes, a model's
``state_dict`` (pass ``model.state_dict()``), :class:`Raised` (from
:func:`outcome`), :class:`Approx` (a value with the tolerance the grader
allows for it) and :class:`Bound` (a number that must lie in a range).
Anything else is sent as its type name only.

The grader compares type first, with one rule for NumPy scalars, the same as
:mod:`course.checks`': where a Python number is expected, a NumPy scalar of the
same kind counts as one (``np.bool_`` as ``bool``, any ``np.integer`` as
``int``, any ``np.floating`` as ``float``); a 0-d array is not a number.

Nothing here decides a grade: this module only describes values.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The MIME type of a results output.
MIME = "application/vnd.gpu-course.results+json"
#: Format version, checked by the grader.
VERSION = 1
#: Environment variable naming a file that plain-script runs append results to.
LOG_ENV = "COURSE_RESULTS_LOG"

_MAX_DEPTH = 32


@dataclass(frozen=True)
class Approx:
    """A value and the tolerance the grader allows for it (``|a-b| <= atol+rtol|b|``).

    Only the tolerance in the reference's results counts; the one a submission
    sends is ignored.
    """

    value: Any
    rtol: float = 1e-7
    atol: float = 0.0
    strict: bool = True
    """False: compare values and shapes only, whatever array type holds them."""


@dataclass(frozen=True)
class Bound:
    """A number that must lie in ``[low, high]`` (either end may be open: None).

    For properties rather than values: "test accuracy at least 0.9". Only the
    bounds in the reference's results count.
    """

    value: Any
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Raised:
    """What :func:`outcome` records when a call raised instead of returning."""

    type: str
    bases: tuple[str, ...]
    message: str


def outcome(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``function(*args, **kwargs)``; return its result, or :class:`Raised`.

    Lets a test record that a call *must* raise (say ``ValueError``) as data.
    """
    try:
        return function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - recorded, then compared by the grader
        # an exception raised in another process keeps its classes' names
        mro = getattr(exc, "_course_mro", None) or tuple(
            c.__name__ for c in type(exc).__mro__
        )
        return Raised(type(exc).__name__, tuple(mro), str(exc)[:300])


#: Set by the grader while it runs a hidden test: ``name -> the reference
#: solution's function``.
_reference_lookup: Any = None


def reference(name: str) -> Any:
    """The reference implementation of another task's function, by name.

    A hidden test that checks one task builds that task's inputs with the
    reference, not with the student's answer to another task (Day 08's
    ``backward`` gets a cache made by the reference ``forward``). While the
    grader runs the test, this is the reference solution's function, run in the
    grader's process; anywhere else (the lesson's solution run as a notebook or
    a script) it is the caller's own global of that name.
    """
    if _reference_lookup is not None:
        return _reference_lookup(name)
    return sys._getframe(1).f_globals[name]


def _float_text(value: float) -> str:
    return repr(float(value))


def _array_node(kind: str, values: np.ndarray, device: str, **extra: Any) -> dict:
    values = np.asarray(values)
    if values.dtype.kind not in "biufc":
        return {"t": "object", "type": f"{kind} array of {values.dtype}"}
    node = {
        "t": "array",
        "kind": kind,
        "dtype": values.dtype.str,
        "shape": list(values.shape),
        "device": device,
        "data": base64.b64encode(values.tobytes(order="C")).decode("ascii"),
    }
    node.update(extra)
    return node


def _tensor_node(value: Any) -> dict:
    device = value.device
    where = "cpu" if device.type == "cpu" else f"{device.type}:{device.index or 0}"
    dtype = str(value.dtype)
    extra = {"torch_dtype": dtype, "requires_grad": bool(value.requires_grad)}
    if device.type == "meta":
        return {
            "t": "array",
            "kind": "torch",
            "dtype": "",
            "shape": list(value.shape),
            "device": where,
            "data": None,
            **extra,
        }
    host = value.detach().cpu()
    if dtype == "torch.bfloat16":
        host = host.float()
    return _array_node("torch", host.numpy(), where, **extra)


def encode(value: Any, depth: int = 0) -> Any:
    """Describe ``value`` as JSON-ready data (see the module's docstring)."""
    if depth > _MAX_DEPTH:
        return {"t": "object", "type": "nested too deeply"}
    described = getattr(type(value), "__course_encode__", None)
    if described is not None:  # a value that lives in another process
        return described(value, depth)
    if value is None:
        return {"t": "none"}
    if isinstance(value, (bool, np.bool_)):
        kind = "bool" if isinstance(value, bool) else "numpy.bool"
        return {"t": "bool", "kind": kind, "v": bool(value)}
    if isinstance(value, int):
        return {"t": "int", "v": str(int(value))}
    if isinstance(value, float) and not isinstance(value, np.floating):
        return {"t": "float", "v": _float_text(value)}
    if isinstance(value, str):
        return {"t": "str", "v": str(value)}
    if isinstance(value, np.generic):
        node = _array_node("numpy", np.asarray(value), "cpu")
        node["kind"] = "numpy-scalar"
        return node
    if isinstance(value, np.ndarray):
        return _array_node("numpy", value, "cpu")
    if isinstance(value, Approx):
        return {
            "t": "approx",
            "v": encode(value.value, depth + 1),
            "rtol": float(value.rtol),
            "atol": float(value.atol),
            "strict": bool(value.strict),
        }
    if isinstance(value, Bound):
        return {
            "t": "bound",
            "v": encode(value.value, depth + 1),
            "low": None if value.low is None else float(value.low),
            "high": None if value.high is None else float(value.high),
        }
    if isinstance(value, Raised):
        return {
            "t": "raised",
            "type": str(value.type),
            "bases": [str(m) for m in value.bases],
            "message": str(value.message),
        }
    if isinstance(value, (list, tuple)):
        return {
            "t": type(value).__name__ if type(value) in (list, tuple) else "list",
            "v": [encode(v, depth + 1) for v in value],
        }
    if isinstance(value, dict):
        return {
            "t": "dict",
            "v": [
                [encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()
            ],
        }
    fake = sys.modules.get("course.fakecupy")
    if fake is not None and isinstance(value, fake.DeviceArray):
        # The simulated device's data, read without a counted transfer (where
        # this process holds the store's control: never in a graded kernel).
        return _array_node("device", value._peek(), value.device_name)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        return _array_node("device", cupy.asnumpy(value), f"cuda:{value.device.id}")
    torch = sys.modules.get("torch")
    if torch is not None:
        if isinstance(value, torch.Tensor):
            return _tensor_node(value)
        if isinstance(value, torch.device):
            return {"t": "device", "v": str(value)}
        if isinstance(value, torch.dtype):
            return {"t": "dtype", "v": str(value)}
    if isinstance(value, np.dtype) or (
        isinstance(value, type) and issubclass(value, np.generic)
    ):
        return {"t": "dtype", "v": np.dtype(value).name}
    return {"t": "object", "type": f"{type(value).__module__}.{type(value).__name__}"}


def submit(results: dict[str, Any], grade_id: str | None = None) -> None:
    """Send a test's results to the grader as one output of type :data:`MIME`.

    In a plain Python script (no Jupyter display) nothing is shown. If the
    environment variable :data:`LOG_ENV` names a file, the payload is also
    appended to it as one JSON line (``course gpu-check`` uses this to compare a
    GPU's results with the CPU reference's).
    """
    if not isinstance(results, dict):
        raise TypeError("submit() takes a dict of results, keyed by what was tested")
    payload = {
        "version": VERSION,
        "grade_id": grade_id,
        "results": encode(results),
    }
    text = json.dumps(payload, allow_nan=False, separators=(",", ":"))
    log = os.environ.get(LOG_ENV)
    if log:  # a plain-script run on other hardware keeps its results to compare
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    try:
        from IPython import get_ipython
        from IPython.display import publish_display_data
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return
    cases = len(results)
    publish_display_data(
        {MIME: json.loads(text), "text/plain": f"<results of {cases} case(s)>"}
    )


__all__ = [
    "MIME",
    "Approx",
    "Bound",
    "Raised",
    "encode",
    "outcome",
    "reference",
    "submit",
]
