"""The numba signature of a kernel launch, for :mod:`autograder.grading.cuda_compile`.

Called in a grading kernel, where numba-cuda runs in its simulator, at each
launch of a student's kernel: NumPy arrays, device arrays (the simulator's
``FakeCUDAArray``, or anything with ``__cuda_array_interface__``), Python and
NumPy numbers and tuples of them become a signature string such as
``"void(float64[::1], float64[::1], float64, int64)"``. It imports numba only
when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_NONE = object()  # no Python value: a tuple's element type


class UnsupportedArgument(TypeError):
    """A launch argument that no CUDA kernel can take (a list, a string...)."""


class HeldArray:
    """An array the simulated GPU's store holds, as a signature sees it: its
    dtype and dimensions, any layout (a CuPy or numba device array's)."""

    _course_handle = True

    def __init__(self, array: Any) -> None:
        self.dtype, self.ndim = array.dtype, array.ndim


def signature_of(args: Sequence[Any]) -> str:
    """The numba signature of a kernel launched with ``args``.

    Takes NumPy arrays, device arrays (the simulator's, or anything with
    ``__cuda_array_interface__``), Python and NumPy numbers and tuples of them.

    Raises:
        UnsupportedArgument: an argument a kernel cannot take; the message says
            which one and what to pass instead.
    """
    return "void(" + ", ".join(_arg_text(a, i + 1) for i, a in enumerate(args)) + ")"


def _arg_text(value: Any, position: int) -> str:
    import numba
    import numpy as np
    from numba.np import numpy_support

    if type(value).__name__ in ("In", "Out", "InOut"):
        value = getattr(value, "value", value)  # cuda.In(x) and the like: x's type
    if getattr(type(value), "_course_handle", None) is not None:
        # an array of the simulated GPU's store (a CuPy-like array, or
        # cuda.to_device in grading): its shape and dtype, any layout
        dtype = np.dtype(value.dtype)
        element = numpy_support.from_dtype(dtype)
        return _array_text(_type_text(element, dtype, position), value.ndim, "A")
    interface = getattr(value, "__cuda_array_interface__", None)
    if not isinstance(interface, dict) or hasattr(value, "_numba_type_"):
        try:
            return _type_text(numba.typeof(value), value, position)
        except (ValueError, TypeError) as exc:
            if isinstance(exc, UnsupportedArgument):
                raise
            return _type_text(None, value, position)
    dtype, shape = np.dtype(interface["typestr"]), tuple(interface["shape"])
    strides = interface.get("strides")
    layout = "C"
    if strides is not None:
        pairs = list(zip(shape, strides))
        layout = next(
            (o for o, p in (("C", pairs[::-1]), ("F", pairs)) if _dense(p, dtype)), "A"
        )
    try:
        element = numpy_support.from_dtype(dtype)
    except Exception:  # noqa: BLE001 - numba raises several kinds
        element = None
    return _array_text(_type_text(element, dtype, position), len(shape), layout)


def _dense(pairs: list[tuple[int, int]], dtype: Any) -> bool:
    """Whether (extent, stride) pairs, innermost first, leave no gaps."""
    expected = dtype.itemsize
    for extent, stride in pairs:
        if extent > 1 and stride != expected:
            return False
        expected *= extent
    return True


def _array_text(dtype: str, ndim: int, layout: str) -> str:
    if ndim == 0:
        return f"Array({dtype}, 0, 'C')"
    dims = [":"] * ndim
    if layout in ("C", "F"):
        dims[-1 if layout == "C" else 0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


def _type_text(nbtype: Any, value: Any, position: int) -> str:
    from numba.core import types

    if isinstance(nbtype, types.Array):
        dtype = _type_text(nbtype.dtype, value, position)
        return _array_text(dtype, nbtype.ndim, nbtype.layout)
    if isinstance(nbtype, types.Boolean):
        return "boolean"
    if isinstance(nbtype, (types.Integer, types.Float, types.Complex)):
        return str(nbtype)
    if isinstance(nbtype, types.UniTuple):
        return f"UniTuple({_type_text(nbtype.dtype, _NONE, position)}, {nbtype.count})"
    if isinstance(nbtype, types.BaseTuple) and nbtype.types:
        inner = ", ".join(_type_text(t, _NONE, position) for t in nbtype.types)
        return f"Tuple(({inner},))" if len(nbtype.types) == 1 else f"Tuple(({inner}))"
    kind = str(nbtype) if value is _NONE else type(value).__name__
    raise UnsupportedArgument(
        f"argument {position} is (or holds) a {kind}, which a CUDA kernel cannot "
        "take: pass a NumPy array of numbers (np.asarray(...)), a device array "
        "(cuda.to_device(...)) or a number"
    )
