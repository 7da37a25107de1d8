"""What every request to the simulated GPU's store shares, below the arrays.

:func:`caller` finds the student's line of a call; :func:`no_host_arrays`
refuses a NumPy array of the host met in an op, as CuPy refuses it;
:func:`path_of` names a NumPy function; :data:`READ_METHODS` and
:data:`IMPLICIT` are the array's reads and its refusal of implicit
conversion. The requests and their answers as device arrays are
:mod:`course.devicearray`'s.
"""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np

#: Modules whose frames are the counters' own, not the caller's.
_OWN_FILES = (
    "course/sync.py",
    "course/syncwatch.py",
    "course/streams.py",
    "course/fakecupy.py",
    "course/devicearray.py",
    "course/transfers.py",
    "course/simlink.py",
    "course/devicecalls.py",
)


#: The DeviceArray methods that copy data to the host: each call is one
#: download, which the store counts as a copy and a synchronisation.
READ_METHODS = (
    "get",
    "copy_to_host",
    "item",
    "tolist",
    "tobytes",
    "tofile",
    "dump",
    "dumps",
    "__float__",
    "__int__",
    "__complex__",
    "__bool__",
    "__repr__",
    "__str__",
    "__format__",
    "__reduce__",
)
IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
    "construct a NumPy array explicitly."
)


def caller() -> str:
    """``file:line`` of the first frame outside the course's counters, torch,
    CuPy and NumPy (``numpy.save(f, d)`` copies inside NumPy)."""
    for frame in reversed(traceback.extract_stack(limit=16)[:-2]):
        name = frame.filename.replace("\\", "/")
        if any(f"/{lib}/" in name for lib in ("torch", "cupy", "numpy")):
            continue
        if name.endswith(_OWN_FILES):
            continue
        return f"{name}:{frame.lineno}"
    return "?"


def _mixing_error(value: Any) -> TypeError:
    return TypeError(
        f"Unsupported type {type(value)}: a host (NumPy) array cannot meet a device "
        "array in one operation. Copy it to the device with xp.asarray(...) first, "
        "or create it with xp instead of numpy."
    )


def no_host_arrays(value: Any) -> Any:
    """``value``, checked: a NumPy array (0-d too) in it is mixing, as CuPy has it."""
    if isinstance(value, np.ndarray):
        raise _mixing_error(value)
    if isinstance(value, (list, tuple)):
        for item in value:
            no_host_arrays(item)
    elif isinstance(value, dict):
        for item in value.values():
            no_host_arrays(item)
    return value


def path_of(fn: Any) -> str:
    """``numpy.linalg.norm`` for NumPy's function objects."""
    name = getattr(fn, "__name__", "")
    for module in (np, np.linalg, np.random, np.fft):
        if getattr(module, name, None) is fn:
            return f"{module.__name__}.{name}"
    return f"{getattr(fn, '__module__', '?')}.{name}"


__all__ = [
    "IMPLICIT",
    "READ_METHODS",
    "caller",
    "no_host_arrays",
    "path_of",
]
