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
from typing import Any

import numpy as np

from autograder.grading.compare_values import (
    DEFAULT_POLICY,
    DEFAULT_TOLERANCE,
    FAILED,
    MESSAGE,
    PASS_FAIL,
    POLICIES,
    REVEAL,
    VALUES,
    compare_bound,
    complain,
    default_tolerance,
    differs,
    say,
    values_shown,
)
from autograder.grading.result_nodes import BadResults
from autograder.grading.result_nodes import array_of as _values
from autograder.grading.result_nodes import dtype_of as _dtype
from autograder.grading.result_nodes import kind_name as _kind_name
from autograder.grading.result_nodes import number_of as _number
from autograder.grading.result_nodes import numbers_of as _as_numbers
from autograder.grading.result_nodes import show as _show

_MAX_MESSAGES = 3
_KINDS = {"bool": "bool", "str": "str", "device": "torch.device", "dtype": "dtype"}


def _expected(want: dict, got: Any) -> str:
    """``want`` named in a type mismatch: by its value only where that is shown,
    or where the submission holds the same text already (``'cuda'``, a str)."""
    t = want.get("t")
    if values_shown() or t not in _KINDS:
        return _show(want)
    same = isinstance(got, dict) and str(got.get("v")) == str(want.get("v"))
    return _show(want) if same else say("a {kind}", kind=_KINDS[t])


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
            return complain(
                label,
                "expected {kind}, got {got}",
                kind=_kind_name(want),
                got=_show(got),
            )
    if got.get("device") != want.get("device"):
        return complain(
            label,
            "on {got}, expected on {want}",
            got=got.get("device"),
            want=want.get("device"),
        )
    if [int(n) for n in got.get("shape", [])] != want["shape"]:
        return complain(
            label,
            "shape {got}, expected {want}",
            got=tuple(got.get("shape", [])),
            want=tuple(want["shape"]),
        )
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
        return complain(
            label, "dtype {got}, expected {want}", got=got_shown, want=shown
        )
    if want.get("data") is None:  # meta tensors: no values to compare
        return []
    expected = _values(want)
    actual = _values(got)
    rtol, atol = tol if tol is not None else default_tolerance(expected.dtype)
    problem = differs(expected, actual, rtol, atol)
    return [f"{label}: {problem}"] if problem else []


def compare(want: Any, got: Any, label: str = "result", tol: Any = None) -> list[str]:
    """Messages for every way ``got`` differs from ``want`` (at most a few),
    under the policy :func:`compare_results` sets (alone: :data:`MESSAGE`)."""
    if not isinstance(got, dict) or "t" not in got:
        return complain(label, "the results could not be read")
    kind = want["t"]
    if kind == "approx":
        inner_got = got["v"] if got.get("t") == "approx" else got
        if not isinstance(inner_got, dict):
            return complain(label, "the results could not be read")
        tolerance = (want["rtol"], want["atol"])
        if want.get("strict") is False:
            return _compare_numbers(want["v"], inner_got, label, tolerance)
        return compare(want["v"], inner_got, label, tolerance)
    if kind == "bound":
        return compare_bound(want, got, label)
    if got.get("t") in ("approx", "bound"):
        got = got.get("v")
        if not isinstance(got, dict):
            return complain(label, "the results could not be read")
    if kind == "array":
        return _compare_arrays(want, got, label, tol)
    if kind == "float":
        if got.get("t") == "array" and got.get("kind") == "numpy-scalar":
            if _dtype(got).kind != "f":  # any NumPy float counts (course.checks)
                return complain(
                    label, "expected a Python float, got {got}", got=_show(got)
                )
            value = _values(got).astype(np.float64)
        elif got.get("t") == "float":
            value = np.float64(_number(got))
        else:
            return complain(label, "expected a Python float, got {got}", got=_show(got))
        rtol, atol = tol if tol is not None else DEFAULT_TOLERANCE[8]
        problem = differs(np.float64(_number(want)), np.asarray(value), rtol, atol)
        return [f"{label}: {problem}"] if problem else []
    if kind == "int":
        if got.get("t") == "int":
            try:
                value = int(got["v"])
            except (TypeError, ValueError):
                return complain(label, "the results could not be read")
        elif (
            got.get("t") == "array"
            and got.get("kind") == "numpy-scalar"
            and _dtype(got).kind in "iu"  # any NumPy integer counts (course.checks)
        ):
            value = int(_values(got).reshape(-1)[0])
        else:
            return complain(
                label,
                "expected a Python int, got {got}; convert it with int(...)",
                got=_show(got),
            )
        if tol is not None and tol != (0.0, 0.0):
            return compare(
                {"t": "float", "v": want["v"]},
                {"t": "float", "v": str(value)},
                label,
                tol,
            )
        if value != int(want["v"]):
            if not values_shown():
                return complain(
                    label, "got {got}, which is not the int expected", got=value
                )
            return complain(
                label, "got {got}, expected {want}", got=value, want=want["v"]
            )
        return []
    if kind in ("bool", "str", "device", "dtype", "none"):
        if got.get("t") != kind:
            return complain(
                label,
                "expected {kind}, got {got}",
                kind=_expected(want, got),
                got=_show(got),
            )
        if got.get("v") != want.get("v"):
            # a bool has two values: naming the one expected hides nothing,
            # and "got True" alone would not say whether True is the fault
            if not values_shown() and kind != "bool":
                return complain(
                    label,
                    "got {got}, which is not the {kind} expected",
                    got=_show(got),
                    kind=_KINDS.get(kind, kind),
                )
            return complain(
                label, "got {got}, expected {want}", got=_show(got), want=_show(want)
            )
        return []
    if kind == "raised":
        if got.get("t") != "raised":
            return complain(
                label,
                "should raise {want}, returned {got}",
                want=want["type"],
                got=_show(got),
            )
        bases = got.get("bases") if isinstance(got.get("bases"), list) else []
        if want["type"] not in bases:
            return complain(
                label,
                "raised {got}, expected {want}",
                got=got.get("type"),
                want=want["type"],
            )
        return []
    if kind in ("list", "tuple"):
        # A list where a tuple is written (or the reverse) is the same answer.
        if got.get("t") not in ("list", "tuple") or not isinstance(got.get("v"), list):
            return complain(
                label, "expected a {kind}, got {got}", kind=kind, got=_show(got)
            )
        if len(got["v"]) != len(want["v"]):
            return complain(
                label,
                "{got} item(s), expected {want}",
                got=len(got["v"]),
                want=len(want["v"]),
            )
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
            return complain(
                label, "expected {kind}, got {got}", kind=_show(want), got=_show(got)
            )
        return []
    return complain(label, "cannot compare a value of kind {kind!r}", kind=kind)


def _compare_numbers(want: dict, got: dict, label: str, tol: Any) -> list[str]:
    """Values and shape only: a NumPy scalar, a 0-d device array or a float alike."""
    if want.get("t") == "raised" or got.get("t") == "raised":
        return compare(want, got, label, tol)
    if want.get("t") in ("list", "tuple", "dict"):
        if want.get("t") == "dict" or got.get("t") not in ("list", "tuple"):
            return compare(want, got, label, tol)
        if len(got.get("v", [])) != len(want["v"]):
            return complain(
                label,
                "{got} item(s), expected {want}",
                got=len(got.get("v", [])),
                want=len(want["v"]),
            )
        problems: list[str] = []
        for i, (w, g) in enumerate(zip(want["v"], got["v"])):
            problems += _compare_numbers(w, g, f"{label}[{i}]", tol)
        return problems[:_MAX_MESSAGES]
    expected, actual = _as_numbers(want), _as_numbers(got)
    if expected is None:
        return compare(want, got, label, tol)
    if actual is None:
        return complain(label, "expected numbers, got {got}", got=_show(got))
    if expected.shape != actual.shape:
        return complain(
            label, "shape {got}, expected {want}", got=actual.shape, want=expected.shape
        )
    problem = differs(expected, actual, *tol)
    return [f"{label}: {problem}"] if problem else []


def _is_str(node: Any) -> bool:
    return isinstance(node, dict) and node.get("t") == "str"


def _key_text(node: Any) -> str:
    if isinstance(node, dict) and node.get("t") in ("str", "int", "float", "bool"):
        return repr(node["v"]) if node["t"] == "str" else str(node["v"])
    return _show(node)


def _compare_dicts(want: dict, got: dict, label: str, tol: Any) -> list[str]:
    if got.get("t") != "dict" or not isinstance(got.get("v"), list):
        return complain(label, "expected a dict, got {got}", got=_show(got))
    try:
        got_items = {_key_text(k): v for k, v in got["v"]}
    except (TypeError, ValueError):
        return complain(label, "the results could not be read")
    want_items = {_key_text(k): v for k, v in want["v"]}
    missing = [k for k in want_items if k not in got_items]
    extra = [k for k in got_items if k not in want_items]
    problems: list[str] = []
    if missing:
        named = missing[:5]
        if not values_shown():  # a key that is not a name may be an answer
            texts = {_key_text(k) for k, _ in want["v"] if _is_str(k)}
            named = [k for k in missing if k in texts][:5]
        more = len(missing) - len(named)
        if not more:
            others = ""
        elif named:
            others = say(" and {count} other(s)", count=more)
        else:
            others = say("{count} other(s)", count=more)
        keys = ", ".join(named) + others
        problems += complain(label, "missing key(s) {keys}", keys=keys)
    if extra:
        keys = ", ".join(extra[:5])
        problems += complain(label, "unexpected key(s) {keys}", keys=keys)
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
    token = REVEAL.set(reveal)
    try:
        problems = compare(want, got, "results")
    except (BadResults, KeyError, TypeError, ValueError, IndexError) as exc:
        problems = [say("the results could not be read ({error})", error=exc)]
    finally:
        REVEAL.reset(token)
    return [FAILED] if problems and reveal == PASS_FAIL else problems


__all__ = [
    "DEFAULT_POLICY",
    "FAILED",
    "MESSAGE",
    "PASS_FAIL",
    "POLICIES",
    "VALUES",
    "compare",
    "compare_results",
]
