"""Assertions for exercise tests, with messages that say what to fix.

Each ``check_*`` raises ``AssertionError`` with a message written for a student:
what was wrong, what was expected, and what to try. They are strict on purpose:
types are compared with ``type()`` rather than trusting an object's own
``__eq__``, ``__bool__`` or ``__class__``, and values are copied into NumPy
before they are compared, so an object that claims to equal everything fails.

Check in this order: type, shape, dtype, device, then values.

**NumPy scalars.** Where a Python number is asked for, a NumPy scalar of the
same kind counts as one: ``np.bool_`` as a ``bool``, any ``np.integer``
(``np.int64``...) as an ``int``, any ``np.floating`` (``np.float32`` too) as a
``float``. Kinds still differ (``np.float64(3.0)`` is not an ``int``), and
arrays, 0-d ones included, and tensors are not numbers. The grader applies the
same rule (:mod:`course.results`).

**Languages.** Every message is English text looked up in the course's
catalogs (:mod:`course.i18n`): in the Chinese edition, or with
``COURSE_LANG=zh``, a student reads it in Chinese. A test's own condition goes
through :func:`check_that`, whose message template is a catalog entry too
(``course catalogs`` collects them from the lessons' test cells).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from course.backend import as_numpy, device_of
from course.i18n import _

_EXACT_TYPES = (bool, int, float, str, bytes, type(None))
_PLAIN_VALUE = {
    int: int.__int__,
    float: float.__float__,
    str: str.__str__,
    bytes: lambda v: bytes(memoryview(v)),
}


def numpy_kind(value: Any) -> type | None:
    """The Python number type a NumPy scalar counts as (see the module), or None."""
    if isinstance(value, np.bool_):
        return bool
    if isinstance(value, np.integer):
        return int
    if isinstance(value, np.floating):
        return float
    return None


def _type_name(t: type | tuple[type, ...]) -> str:
    if isinstance(t, tuple):
        return " or ".join(_type_name(x) for x in t)
    module = t.__module__
    return t.__qualname__ if module == "builtins" else f"{module}.{t.__qualname__}"


def check_type(
    value: Any, expected: type | tuple[type, ...], name: str = "value"
) -> None:
    """Check that ``type(value)`` is ``expected`` or a subclass of it (a NumPy
    scalar passes where its kind of Python number is expected)."""
    actual = type(value)
    wanted = expected if isinstance(expected, tuple) else (expected,)
    if numpy_kind(value) in wanted:
        return
    if not issubclass(actual, expected):
        raise AssertionError(
            _(
                "{name} should be a {expected}, but it is a {actual}. "
                "Check what your code returns."
            ).format(
                name=name, expected=_type_name(expected), actual=_type_name(actual)
            )
        )


def check_keys(
    value: Mapping[str, Any], keys: Iterable[str], name: str = "value"
) -> None:
    """Check that a dict has exactly the expected keys."""
    check_type(value, dict, name)
    expected = list(keys)
    got = [k for k in dict.keys(value)]
    missing = [k for k in expected if k not in got]
    extra = [k for k in got if k not in expected]
    if missing or extra:
        parts = []
        if missing:
            parts.append(_("missing keys {keys}").format(keys=missing))
        if extra:
            parts.append(_("unexpected keys {keys}").format(keys=extra))
        raise AssertionError(
            _("{name} has {parts}; expected exactly {expected}.").format(
                name=name, parts=_(" and ").join(parts), expected=expected
            )
        )


def check_equal(actual: Any, expected: Any, name: str = "value") -> None:
    """Check equality of plain values (None, bool, int, float, str, lists, dicts).

    The type must match exactly (``True`` is not ``1``), so an object with a
    permissive ``__eq__`` cannot pass. Floats are compared exactly; use
    :func:`check_close` for computed numbers.
    """
    if isinstance(expected, Mapping):
        check_keys(actual, list(expected), name)
        for key in expected:
            check_equal(
                dict.__getitem__(actual, key), expected[key], f"{name}[{key!r}]"
            )
        return
    if isinstance(expected, (list, tuple)):
        check_type(actual, type(expected), name)
        if len(actual) != len(expected):
            raise AssertionError(
                _("{name} has {got} items, expected {want}.").format(
                    name=name, got=len(actual), want=len(expected)
                )
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            check_equal(a, e, f"{name}[{i}]")
        return
    kind = type(expected)
    if kind in (bool, int, float) and numpy_kind(actual) is kind:
        actual = actual.item()  # a NumPy scalar counts as its Python number
    if kind in _EXACT_TYPES:
        exact = kind in (bool, type(None))
        if (
            (type(actual) is not kind)
            if exact
            else (not isinstance(actual, kind) or isinstance(actual, bool))
        ):
            raise AssertionError(
                _(
                    "{name} should be a {kind} ({expected!r}), but it is a {actual}."
                ).format(
                    name=name,
                    kind=_type_name(kind),
                    expected=expected,
                    actual=_type_name(type(actual)),
                )
            )
        # The base type's own method reads the value, ignoring any override.
        actual = _PLAIN_VALUE.get(kind, lambda v: v)(actual)
    if not (expected == actual):
        raise AssertionError(
            _("{name} is {actual!r}, expected {expected!r}.").format(
                name=name, actual=actual, expected=expected
            )
        )


def check_shape(value: Any, shape: tuple[int, ...], name: str = "value") -> None:
    """Check an array's or tensor's shape."""
    got = getattr(value, "shape", None)
    if got is None:
        raise AssertionError(
            _(
                "{name} has no .shape: expected an array or tensor of shape "
                "{shape}, got a {actual}."
            ).format(name=name, shape=shape, actual=_type_name(type(value)))
        )
    got = tuple(int(d) for d in got)
    if got != tuple(shape):
        raise AssertionError(
            _(
                "{name} has shape {got}, expected {want}. Check the axis you sum "
                "or average over, and whether you need a reshape or transpose."
            ).format(name=name, got=got, want=tuple(shape))
        )


def check_dtype(value: Any, dtype: Any, name: str = "value") -> None:
    """Check an array's or tensor's dtype (``numpy`` or ``torch`` dtypes)."""
    got = getattr(value, "dtype", None)
    same = str(got) == str(dtype)
    if not same and got is not None:
        try:
            same = np.dtype(got) == np.dtype(dtype)
        except TypeError:
            same = False
    if not same:
        try:
            wanted = str(np.dtype(dtype))
        except TypeError:
            wanted = str(dtype)
        raise AssertionError(
            _(
                "{name} has dtype {got}, expected {want}. Convert it explicitly "
                "(NumPy/CuPy: .astype(...); torch: .to(dtype))."
            ).format(name=name, got=got, want=wanted)
        )


def _same_device(actual: str, expected: str) -> bool:
    if ":" in expected:
        return actual == expected
    return actual.split(":")[0] == expected


def check_device(value: Any, device: Any, name: str = "value") -> None:
    """Check that a tensor or array lives on ``device`` ("cuda" matches any index)."""
    expected = str(device)
    actual = device_of(value)
    if not _same_device(actual, expected):
        raise AssertionError(
            _(
                "{name} is on {actual} but should be on {expected}. Move it with "
                "`{name} = {name}.to({expected!r})` (torch) or cupy.asarray / "
                "cupy.asnumpy (CuPy); inputs, labels and model must share one "
                "device."
            ).format(name=name, actual=actual, expected=expected)
        )


def check_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    name: str = "value",
) -> None:
    """Check numbers or arrays agree within ``atol + rtol * |expected|``.

    Both sides are converted to NumPy first, so torch tensors and CuPy arrays on
    any device can be compared. NaN never equals anything.
    """
    if isinstance(actual, (int, float)) and not isinstance(actual, bool):
        got = np.asarray(float(actual))
    else:
        got = np.asarray(as_numpy(actual))
    want = np.asarray(as_numpy(expected), dtype=float)
    if got.dtype == object or not np.issubdtype(got.dtype, np.number):
        if got.dtype != bool:
            raise AssertionError(
                _("{name} is not numeric (dtype {dtype}); expected numbers.").format(
                    name=name, dtype=got.dtype
                )
            )
    got = got.astype(float)
    if got.shape != want.shape:
        raise AssertionError(
            _("{name} has shape {got}, expected {want}.").format(
                name=name, got=got.shape, want=want.shape
            )
        )
    if np.isnan(got).any():
        raise AssertionError(
            _(
                "{name} contains NaN. Look for log(0), 0/0, an overflowing exp, or "
                "memory nothing wrote (cuda.device_array is not zeroed)."
            ).format(name=name)
        )
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=False)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0]) if got.ndim else ()
        diff = float(np.max(np.abs(got - want)[bad]))
        where = _(" at index {index}").format(index=index) if index else ""
        a = got[index] if index else float(got)
        e = want[index] if index else float(want)
        raise AssertionError(
            _(
                "{name} differs from the expected value{where}: got {got:.6g}, "
                "expected {want:.6g} ({off} of {size} values off, largest "
                "difference {diff:.3g}; tolerance rtol={rtol}, atol={atol})."
            ).format(
                name=name,
                where=where,
                got=a,
                want=e,
                off=int(bad.sum()),
                size=bad.size,
                diff=diff,
                rtol=rtol,
                atol=atol,
            )
        )


def check_finite(value: Any, name: str = "value") -> None:
    """Check that no element is NaN or infinite."""
    arr = np.asarray(as_numpy(value), dtype=float)
    if not np.all(np.isfinite(arr)):
        raise AssertionError(
            _(
                "{name} contains NaN or inf. Use a numerically stable formula "
                "(e.g. log-sum-exp) or a smaller learning rate."
            ).format(name=name)
        )


def check_positive(value: Any, name: str = "value") -> None:
    """Check that a number is a finite float or int greater than zero."""
    check_type(value, (int, float), name)
    if isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise AssertionError(
            _("{name} should be a positive number, got {value!r}.").format(
                name=name, value=value
            )
        )


def check_that(condition: object, message: str, **fields: Any) -> None:
    """Check a condition the other checks do not cover.

    ``message`` says what went wrong and what to try, in English, with
    ``{name}`` fields filled from ``fields`` (``str.format``); it is looked up
    in the course's catalogs as written, so a translation keeps its fields.
    """
    if not condition:
        raise AssertionError(_(message).format(**fields))
