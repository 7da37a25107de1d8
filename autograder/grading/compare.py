"""Compare a submission's results with the reference's, as data, in the grader.

Both sides are trees made by :func:`course.results.encode`. The reference's tree
is trusted (it came from running the lesson's solution); the submission's is
not, so every node is validated before use and nothing in it is executed,
unpickled or imported. :func:`compare` returns messages that say what differs,
in the order a student should fix it: type, then shape, dtype and device, then
values. An empty list means the results match.

Tolerances: a reference value wrapped in ``Approx`` carries its own; other
floating-point values get the default for their dtype, wide enough for a
different number of threads summing in a different order.

How much a message tells is a policy (``compare_results(..., reveal=...)``):
:data:`PASS_FAIL` says only ``failed``; :data:`MESSAGE` (the default) says what
differs and where (type, shape, dtype, device, which values, a bound's limits)
but never a value of the reference, so a hidden test's answer cannot be read
off its feedback; :data:`VALUES` also quotes the values (``got 6.8,
expected 6.831749``).
"""

from __future__ import annotations

import base64
import math
from contextvars import ContextVar
from typing import Any

import numpy as np

from autograder.grading.result_nodes import BadResults
from autograder.grading.result_nodes import array_of as _values
from autograder.grading.result_nodes import dtype_of as _dtype
from autograder.grading.result_nodes import kind_name as _kind_name
from autograder.grading.result_nodes import number_of as _number
from autograder.grading.result_nodes import numbers_of as _as_numbers
from autograder.grading.result_nodes import show as _show

#: Feedback policies for hidden tests (see the module).
PASS_FAIL = "pass-fail"
MESSAGE = "message"
VALUES = "values"
POLICIES = (PASS_FAIL, MESSAGE, VALUES)
DEFAULT_POLICY = MESSAGE
#: The one message :data:`PASS_FAIL` gives.
FAILED = "failed"
_REVEAL: ContextVar[str] = ContextVar("reveal", default=DEFAULT_POLICY)

#: Default (rtol, atol) per floating dtype kind and size.
DEFAULT_TOLERANCE = {2: (1e-2, 1e-3), 4: (1e-5, 1e-6), 8: (1e-9, 1e-12)}
_MAX_MESSAGES = 3


def _values_shown() -> bool:
    return _REVEAL.get() == VALUES


_KINDS = {"bool": "bool", "str": "str", "device": "torch.device", "dtype": "dtype"}


def _expected(want: dict, got: Any) -> str:
    """``want`` named in a type mismatch: by its value only where that is shown,
    or where the submission holds the same text already (``'cuda'``, a str)."""
    t = want.get("t")
    if _values_shown() or t not in _KINDS:
        return _show(want)
    same = isinstance(got, dict) and str(got.get("v")) == str(want.get("v"))
    return _show(want) if same else f"a {_KINDS[t]}"


def _close(want: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> str:
    """Empty if close; otherwise a short description of the worst difference."""
    want = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    got = got.astype(want.dtype)
    nan_want, nan_got = np.isnan(want), np.isnan(got)
    if not np.array_equal(nan_want, nan_got):
        where = np.argwhere(nan_want != nan_got)[0]
        return f"NaN where the reference differs (NaN or not), at {tuple(where)}"
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if ok.all():
        return ""
    bad = np.argwhere(~ok)
    first = tuple(int(i) for i in bad[0])
    at = f" at index {first}" if want.ndim else ""
    if not _values_shown():  # the submission's values, never the reference's
        yours = (got[first] if want.ndim else got).item()
        text = (
            f"{int((~ok).sum())} of {want.size} value(s) differ beyond the "
            f"tolerance (rtol={rtol:g}, atol={atol:g})"
            + (
                f"; first{at}, where yours is {yours:.8g}"
                if at
                else f"; yours is {yours:.8g}"
            )
        )
        return text + (f"; your values: {_summary(got)}" if want.ndim else "")
    got_value = (got[first] if want.ndim else got).item()
    want_value = (want[first] if want.ndim else want).item()
    return (
        f"{int((~ok).sum())} of {want.size} value(s) differ; first{at}: "
        f"got {got_value:.8g}, expected {want_value:.8g} "
        f"(tolerance rtol={rtol:g}, atol={atol:g})"
    )


def _summary(values: np.ndarray) -> str:
    """The submission's values in a few words: all of them when few, else
    their range and mean."""
    flat = values.reshape(-1)
    if flat.size <= 6:
        return "[" + ", ".join(f"{v:.6g}" for v in flat.tolist()) + "]"
    with np.errstate(invalid="ignore", over="ignore"):
        finite = flat[np.isfinite(flat)] if flat.dtype.kind != "c" else flat
        if finite.size == 0:
            return "no finite value"
        return (
            f"min {finite.real.min():.6g}, mean {finite.real.mean():.6g}, "
            f"max {finite.real.max():.6g}"
        )


def _default_tolerance(dtype: np.dtype) -> tuple[float, float]:
    if dtype.kind in "fc":
        size = dtype.itemsize // (2 if dtype.kind == "c" else 1)
        return DEFAULT_TOLERANCE.get(size, DEFAULT_TOLERANCE[8])
    return (0.0, 0.0)


def _compare_arrays(want: dict, got: dict, label: str, tol: Any) -> list[str]:
    host = {"numpy", "numpy-scalar"}
    same_host = (
        got.get("t") == "array"
        and {got.get("kind"), want.get("kind")} <= host
        and want.get("shape") == [] == got.get("shape")
    )
    if not same_host and (
        got.get("t") != "array" or got.get("kind") != want.get("kind")
    ):
        if want.get("kind") == "numpy-scalar" and got.get("t") in ("float", "int"):
            got = {
                "t": "array",
                "kind": "numpy-scalar",
                "dtype": want["dtype"],
                "shape": [],
                "device": "cpu",
                "data": base64.b64encode(
                    np.asarray(_number(got), dtype=want["dtype"]).tobytes()
                ).decode("ascii"),
            }
        else:
            return [f"{label}: expected {_kind_name(want)}, got {_show(got)}"]
    if got.get("device") != want.get("device"):
        return [f"{label}: on {got.get('device')}, expected on {want.get('device')}"]
    if [int(n) for n in got.get("shape", [])] != want["shape"]:
        return [
            f"{label}: shape {tuple(got.get('shape', []))}, "
            f"expected {tuple(want['shape'])}"
        ]
    want_dtype = want.get("torch_dtype") or want.get("dtype")
    got_dtype = got.get("torch_dtype") or got.get("dtype")
    if want.get("kind") == "torch":
        same = want_dtype == got_dtype
    else:
        same = _dtype(want) == _dtype(got)
    if not same:
        shown = want_dtype if want.get("kind") == "torch" else np.dtype(want_dtype).name
        got_shown = (
            got_dtype if want.get("kind") == "torch" else np.dtype(got_dtype).name
        )
        return [f"{label}: dtype {got_shown}, expected {shown}"]
    if want.get("data") is None:  # meta tensors: no values to compare
        return []
    expected = _values(want)
    actual = _values(got)
    rtol, atol = tol if tol is not None else _default_tolerance(expected.dtype)
    problem = _close(expected, actual, rtol, atol)
    return [f"{label}: {problem}"] if problem else []


def compare(want: Any, got: Any, label: str = "result", tol: Any = None) -> list[str]:
    """Messages for every way ``got`` differs from ``want`` (at most a few),
    under the policy :func:`compare_results` sets (alone: :data:`MESSAGE`)."""
    if not isinstance(got, dict) or "t" not in got:
        return [f"{label}: the results could not be read"]
    kind = want["t"]
    if kind == "approx":
        inner_got = got["v"] if got.get("t") == "approx" else got
        if not isinstance(inner_got, dict):
            return [f"{label}: the results could not be read"]
        tolerance = (want["rtol"], want["atol"])
        if want.get("strict") is False:
            return _compare_numbers(want["v"], inner_got, label, tolerance)
        return compare(want["v"], inner_got, label, tolerance)
    if kind == "bound":
        return _compare_bound(want, got, label)
    if got.get("t") in ("approx", "bound"):
        got = got.get("v")
        if not isinstance(got, dict):
            return [f"{label}: the results could not be read"]
    if kind == "array":
        return _compare_arrays(want, got, label, tol)
    if kind == "float":
        if got.get("t") == "array" and got.get("kind") == "numpy-scalar":
            if _dtype(got).kind != "f":  # any NumPy float counts (course.checks)
                return [f"{label}: expected a Python float, got {_show(got)}"]
            value = _values(got).astype(np.float64)
        elif got.get("t") == "float":
            value = np.float64(_number(got))
        else:
            return [f"{label}: expected a Python float, got {_show(got)}"]
        rtol, atol = tol if tol is not None else DEFAULT_TOLERANCE[8]
        problem = _close(np.float64(_number(want)), np.asarray(value), rtol, atol)
        return [f"{label}: {problem}"] if problem else []
    if kind == "int":
        if got.get("t") == "int":
            try:
                value = int(got["v"])
            except (TypeError, ValueError):
                return [f"{label}: the results could not be read"]
        elif (
            got.get("t") == "array"
            and got.get("kind") == "numpy-scalar"
            and _dtype(got).kind in "iu"  # any NumPy integer counts (course.checks)
        ):
            value = int(_values(got).reshape(-1)[0])
        else:
            return [
                f"{label}: expected a Python int, got {_show(got)}; convert it "
                "with int(...)"
            ]
        if tol is not None and tol != (0.0, 0.0):
            return compare(
                {"t": "float", "v": want["v"]},
                {"t": "float", "v": str(value)},
                label,
                tol,
            )
        if value != int(want["v"]):
            if not _values_shown():
                return [f"{label}: got {value}, which is not the int expected"]
            return [f"{label}: got {value}, expected {want['v']}"]
        return []
    if kind in ("bool", "str", "device", "dtype", "none"):
        if got.get("t") != kind:
            return [f"{label}: expected {_expected(want, got)}, got {_show(got)}"]
        if got.get("v") != want.get("v"):
            if not _values_shown():
                return [
                    f"{label}: got {_show(got)}, which is not the "
                    f"{_KINDS.get(kind, kind)} expected"
                ]
            return [f"{label}: got {_show(got)}, expected {_show(want)}"]
        return []
    if kind == "raised":
        if got.get("t") != "raised":
            return [f"{label}: should raise {want['type']}, returned {_show(got)}"]
        bases = got.get("bases") if isinstance(got.get("bases"), list) else []
        if want["type"] not in bases:
            return [f"{label}: raised {got.get('type')}, expected {want['type']}"]
        return []
    if kind in ("list", "tuple"):
        # A list where a tuple is written (or the reverse) is the same answer.
        if got.get("t") not in ("list", "tuple") or not isinstance(got.get("v"), list):
            return [f"{label}: expected a {kind}, got {_show(got)}"]
        if len(got["v"]) != len(want["v"]):
            return [f"{label}: {len(got['v'])} item(s), expected {len(want['v'])}"]
        problems: list[str] = []
        for i, (w, g) in enumerate(zip(want["v"], got["v"])):
            problems += compare(w, g, f"{label}[{i}]", tol)
            if len(problems) >= _MAX_MESSAGES:
                break
        return problems[:_MAX_MESSAGES]
    if kind == "dict":
        return _compare_dicts(want, got, label, tol)
    if kind == "object":
        if got.get("t") != "object" or got.get("type") != want.get("type"):
            return [f"{label}: expected {_show(want)}, got {_show(got)}"]
        return []
    return [f"{label}: cannot compare a value of kind {kind!r}"]


def _compare_numbers(want: dict, got: dict, label: str, tol: Any) -> list[str]:
    """Values and shape only: a NumPy scalar, a 0-d device array or a float alike."""
    if want.get("t") == "raised" or got.get("t") == "raised":
        return compare(want, got, label, tol)
    if want.get("t") in ("list", "tuple", "dict"):
        if want.get("t") == "dict" or got.get("t") not in ("list", "tuple"):
            return compare(want, got, label, tol)
        if len(got.get("v", [])) != len(want["v"]):
            return [
                f"{label}: {len(got.get('v', []))} item(s), expected {len(want['v'])}"
            ]
        problems: list[str] = []
        for i, (w, g) in enumerate(zip(want["v"], got["v"])):
            problems += _compare_numbers(w, g, f"{label}[{i}]", tol)
        return problems[:_MAX_MESSAGES]
    expected, actual = _as_numbers(want), _as_numbers(got)
    if expected is None:
        return compare(want, got, label, tol)
    if actual is None:
        return [f"{label}: expected numbers, got {_show(got)}"]
    if expected.shape != actual.shape:
        return [f"{label}: shape {actual.shape}, expected {expected.shape}"]
    problem = _close(expected, actual, *tol)
    return [f"{label}: {problem}"] if problem else []


def _compare_bound(want: dict, got: dict, label: str) -> list[str]:
    if got.get("t") in ("approx", "bound"):
        got = got.get("v") if isinstance(got.get("v"), dict) else {}
    if got.get("t") in ("float", "int"):
        value = _number(got)
    elif (
        got.get("t") == "array"
        and got.get("shape") == []
        and (_dtype(got).kind in "iuf")
    ):
        value = float(_values(got))
    else:
        return [f"{label}: expected a number, got {_show(got)}"]
    low, high = want.get("low"), want.get("high")
    if math.isnan(value):
        return [f"{label}: got NaN"]
    if low is not None and value < low:
        return [f"{label}: {value:.6g} is below the required minimum {low:g}"]
    if high is not None and value > high:
        return [f"{label}: {value:.6g} is above the allowed maximum {high:g}"]
    return []


def _is_str(node: Any) -> bool:
    return isinstance(node, dict) and node.get("t") == "str"


def _key_text(node: Any) -> str:
    if isinstance(node, dict) and node.get("t") in ("str", "int", "float", "bool"):
        return repr(node["v"]) if node["t"] == "str" else str(node["v"])
    return _show(node)


def _compare_dicts(want: dict, got: dict, label: str, tol: Any) -> list[str]:
    if got.get("t") != "dict" or not isinstance(got.get("v"), list):
        return [f"{label}: expected a dict, got {_show(got)}"]
    try:
        got_items = {_key_text(k): v for k, v in got["v"]}
    except (TypeError, ValueError):
        return [f"{label}: the results could not be read"]
    want_items = {_key_text(k): v for k, v in want["v"]}
    missing = [k for k in want_items if k not in got_items]
    extra = [k for k in got_items if k not in want_items]
    problems: list[str] = []
    if missing:
        named = missing[:5]
        if not _values_shown():  # a key that is not a name may be an answer
            texts = {_key_text(k) for k, _ in want["v"] if _is_str(k)}
            named = [k for k in missing if k in texts][:5]
        more = len(missing) - len(named)
        others = f"{' and ' if named else ''}{more} other(s)" if more else ""
        problems.append(f"{label}: missing key(s) {', '.join(named)}{others}")
    if extra:
        problems.append(f"{label}: unexpected key(s) {', '.join(extra[:5])}")
    if problems:
        return problems
    top = label == "results"
    plain = {_key_text(k): k.get("v") for k, _ in want["v"] if isinstance(k, dict)}
    for key, value in want_items.items():
        if top and isinstance(plain.get(key), str):
            where = plain[key]  # a test's own label, as written
        else:
            where = f"{label}[{key}]"
        problems += compare(value, got_items[key], where, tol)
        if len(problems) >= _MAX_MESSAGES:
            break
    return problems[:_MAX_MESSAGES]


def compare_results(want: Any, got: Any, reveal: str = DEFAULT_POLICY) -> list[str]:
    """Compare two results trees; an unreadable submission gives one message.

    ``reveal`` is the feedback policy, one of :data:`POLICIES` (see the module).

    Raises:
        ValueError: ``reveal`` is not a policy.
    """
    if reveal not in POLICIES:
        raise ValueError(
            f"hidden-test feedback {reveal!r} is not a policy; use one of "
            + ", ".join(repr(p) for p in POLICIES)
        )
    token = _REVEAL.set(reveal)
    try:
        problems = compare(want, got, "results")
    except (BadResults, KeyError, TypeError, ValueError, IndexError) as exc:
        problems = [f"the results could not be read ({exc})"]
    finally:
        _REVEAL.reset(token)
    return [FAILED] if problems and reveal == PASS_FAIL else problems
