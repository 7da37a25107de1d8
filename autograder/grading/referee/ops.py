"""What the referee may ask of the student's kernel: the agent's operations.

Each is a function of decoded arguments (:data:`OPS`); the agent
(:mod:`autograder.grading.referee.agent`) runs the one a request names and
sends back its result, or the exception as data (:func:`error_info`).
``isinstance`` and ``issubclass`` read the type's own ``__mro__``, never a
class's ``__instancecheck__``.
"""

from __future__ import annotations

import importlib
import operator
import traceback
from typing import Any

from autograder.grading.referee import wire


def _iterate(value: Any) -> Any:
    if type(value) in (list, tuple, dict, set, frozenset, str, bytes, range) or type(
        value
    ).__name__ in ("dict_keys", "dict_values", "dict_items"):
        return ("items", tuple(value))
    return ("iter", iter(value))


def _instance(value: Any, kinds: Any) -> bool:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    mro = type.__getattribute__(type(value), "__mro__")
    return any(isinstance(k, type) and k in mro for k in kinds)


def _subclass(value: Any, kinds: Any) -> bool:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, type):
        raise TypeError("issubclass() arg 1 must be a class")
    mro = type.__getattribute__(value, "__mro__")
    return any(isinstance(k, type) and k in mro for k in kinds)


#: What the referee may ask for, each a function of decoded arguments.
OPS: dict[str, Any] = {
    "getattr": getattr,
    "setattr": setattr,
    "delattr": delattr,
    "call": lambda f, args, kwargs: f(*args, **kwargs),
    "import": importlib.import_module,
    "callable": callable,
    "isinstance": _instance,
    "issubclass": _subclass,
    "is": operator.is_,
    "type": type,
    "iter": _iterate,
    "next": next,
    "len": len,
    "contains": operator.contains,
    "index": operator.index,
    "int": int,
    "float": float,
    "complex": complex,
    "round": round,
    "str": str,
    "repr": repr,
    "format": format,
    "hash": hash,
    "dir": lambda value: sorted(str(n) for n in dir(value)),
    "enter": lambda value: type(value).__enter__(value),
    "exit": lambda value, *exc: type(value).__exit__(value, *exc),
    "reversed": reversed,
    "divmod": divmod,
}
for _name in (
    "getitem setitem delitem add sub mul truediv floordiv mod pow matmul lshift "
    "rshift and_ or_ xor neg pos abs invert iadd isub imul itruediv ifloordiv imod "
    "ipow imatmul ilshift irshift iand ior ixor"
).split():
    OPS[_name.rstrip("_")] = getattr(operator, _name)


def error_info(exc: BaseException) -> dict[str, Any]:
    """An exception as data: its type, the names of its classes, the message."""
    kind = type(exc)
    module, name = wire.type_path(kind)
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a message that cannot be shown
        text = "(its message could not be read)"
    try:
        shown = traceback.TracebackException(kind, exc, exc.__traceback__)
        # as IPython shows it: no frame that hides itself (the course's own
        # code between the student's call and the student's kernel)
        shown.stack = traceback.StackSummary.extract(
            (frame, line)
            for frame, line in traceback.walk_tb(exc.__traceback__)
            if not frame.f_locals.get("__tracebackhide__")
        )
        trace = "".join(shown.format())
    except Exception:  # noqa: BLE001
        trace = ""
    return {
        "type": name,
        "module": module,
        "mro": [wire.type_path(k)[1] for k in type.__getattribute__(kind, "__mro__")],
        "message": text[:2000],
        "traceback": trace[-4000:],
    }


__all__ = ["OPS", "error_info"]
