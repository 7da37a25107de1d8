"""The numbers a comparison prints, and how much of them it may print.

:mod:`autograder.grading.compare` compares results trees; this module holds
what it shares with every message it writes: the feedback policies for hidden
tests (and the one in force, :data:`REVEAL`), the default tolerances, the
description of how two arrays of numbers differ, and :func:`complain`, one
message about a value, written with :func:`course.i18n.say` (the English
template is the catalog's msgid; the grader sets the graded notebook's
language around the chain with :func:`course.i18n.use_language`).
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from typing import Any

import numpy as np

from autograder.grading.result_nodes import array_of as _values
from autograder.grading.result_nodes import dtype_of as _dtype
from autograder.grading.result_nodes import number_of as _number
from autograder.grading.result_nodes import show as _show
from course.i18n import say

#: Feedback policies for hidden tests (see the module).
PASS_FAIL = "pass-fail"
MESSAGE = "message"
VALUES = "values"
POLICIES = (PASS_FAIL, MESSAGE, VALUES)
DEFAULT_POLICY = MESSAGE
#: The one message :data:`PASS_FAIL` gives.
FAILED = "failed"
REVEAL: ContextVar[str] = ContextVar("reveal", default=DEFAULT_POLICY)

#: Default (rtol, atol) per floating dtype kind and size.
DEFAULT_TOLERANCE = {2: (1e-2, 1e-3), 4: (1e-5, 1e-6), 8: (1e-9, 1e-12)}


def values_shown() -> bool:
    return REVEAL.get() == VALUES


def complain(label: str, template: str, **fields: Any) -> list[str]:
    """One message about ``label``: ``template`` in the graded notebook's
    language (:func:`~autograder.grading.compare_values.say`)."""
    return [f"{label}: " + say(template, **fields)]


def compare_bound(want: dict, got: dict, label: str) -> list[str]:
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
        return complain(label, "expected a number, got {got}", got=_show(got))
    low, high = want.get("low"), want.get("high")
    if math.isnan(value):
        return complain(label, "got NaN")
    if low is not None and value < low:
        return complain(
            label, "{got:.6g} is below the required minimum {low:g}", got=value, low=low
        )
    if high is not None and value > high:
        return complain(
            label,
            "{got:.6g} is above the allowed maximum {high:g}",
            got=value,
            high=high,
        )
    return []


def default_tolerance(dtype: np.dtype) -> tuple[float, float]:
    if dtype.kind in "fc":
        size = dtype.itemsize // (2 if dtype.kind == "c" else 1)
        return DEFAULT_TOLERANCE.get(size, DEFAULT_TOLERANCE[8])
    return (0.0, 0.0)


def differs(want: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> str:
    """Empty if close; otherwise a short description of the worst difference."""
    want = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    got = got.astype(want.dtype)
    nan_want, nan_got = np.isnan(want), np.isnan(got)
    if not np.array_equal(nan_want, nan_got):
        where = np.argwhere(nan_want != nan_got)[0]
        return say(
            "NaN where the reference differs (NaN or not), at {at}", at=tuple(where)
        )
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if ok.all():
        return ""
    bad = np.argwhere(~ok)
    first = tuple(int(i) for i in bad[0])
    counts = {"count": int((~ok).sum()), "size": want.size, "rtol": rtol, "atol": atol}
    if not values_shown():  # the submission's values, never the reference's
        yours = (got[first] if want.ndim else got).item()
        if not want.ndim:
            return say(
                "{count} of {size} value(s) differ beyond the tolerance "
                "(rtol={rtol:g}, atol={atol:g}); yours is {got:.8g}",
                got=yours,
                **counts,
            )
        return say(
            "{count} of {size} value(s) differ beyond the tolerance "
            "(rtol={rtol:g}, atol={atol:g}); first at index {at}, where yours is "
            "{got:.8g}; your values: {values}",
            at=first,
            got=yours,
            values=summary(got),
            **counts,
        )
    got_value = (got[first] if want.ndim else got).item()
    want_value = (want[first] if want.ndim else want).item()
    return say(
        "{count} of {size} value(s) differ; first{at}: got {got:.8g}, expected "
        "{want:.8g} (tolerance rtol={rtol:g}, atol={atol:g})",
        at=say(" at index {at}", at=first) if want.ndim else "",
        got=got_value,
        want=want_value,
        **counts,
    )


def summary(values: np.ndarray) -> str:
    """The submission's values in a few words: all of them when few, else
    their range and mean."""
    flat = values.reshape(-1)
    if flat.size <= 6:
        return "[" + ", ".join(f"{v:.6g}" for v in flat.tolist()) + "]"
    with np.errstate(invalid="ignore", over="ignore"):
        finite = flat[np.isfinite(flat)] if flat.dtype.kind != "c" else flat
        if finite.size == 0:
            return say("no finite value")
        return say(
            "min {low:.6g}, mean {mean:.6g}, max {high:.6g}",
            low=finite.real.min(),
            mean=finite.real.mean(),
            high=finite.real.max(),
        )
