"""A CPU stand-in for CuPy, so device-array rules can be practised and graded anywhere.

:data:`fake_cupy` behaves like the ``cupy`` module on NumPy data: its arrays are
:class:`DeviceArray` objects that live on a simulated GPU. Code that passes with
``fake_cupy`` keeps its results on the device and makes its transfers explicit,
which is what it needs to run on a real GPU. It computes nothing faster.

    from course.fakecupy import fake_cupy as xp

    X = xp.asarray(numpy_array)        # "host to device"
    result = (X - X.mean(axis=0)).get()  # "device to host", counted by SyncCounter

The rules, each as CuPy has it (``d``: a device array; every row is tested in
``tests/course/test_fakecupy.py``):

| # | code                                  | fake_cupy, as CuPy              | CuPy |
|---|---------------------------------------|---------------------------------|------|
| 1 | ``numpy.asarray(d)``, ``numpy.array(d)`` | ``TypeError``: implicit  | [a] |
| 2 | ``d + host_array``, any ndim, 0-d too | ``TypeError``: unsupported type | [b] |
| 3 | ``d + 2.0``, ``d * numpy.float32(2)`` | fine: scalars go by value       | [c] |
| 4 | ``numpy.mean(d)``, ``numpy.exp(d)``   | dispatched: a device array      | [d] |
| 5 | ``d.sum()``, ``d.mean()``             | a 0-d device array, no number   | [e] |
| 6 | ``xp.asarray([d0, d1])``              | joined on the device, no copy   | [f] |
| 7 | ``xp.asarray([d0, 1.0])``             | ``TypeError``: implicit         | [g] |
| 8 | ``.get()``, ``.item()``, ``print(d)`` | a counted copy to the host      | [h] |

- [a] ``ndarray.__array__`` raises (``cupy/_core/core.pyx``).
- [b] ``_preprocess_arg`` accepts device arrays and scalars only; a NumPy array
  of any shape gets ``TypeError('Unsupported type ...')``
  (``cupy/_core/_kernel.pyx``).
- [c] ``_scalar.scalar_to_numpy_scalar`` takes Python and NumPy scalars
  (``cupy/_core/_scalar.pyx``).
- [d] ``ndarray.__array_ufunc__`` and ``__array_function__`` (``core.pyx``).
- [e] reductions return ``ndarray`` (``cupy/_core/_reduction.pyx``).
- [f] ``_array_from_nested_cupy_sequence`` (``core.pyx``).
- [g] mixed element types fall back to ``numpy.array(obj)``, which calls
  ``__array__`` (rule 1; ``core.pyx``).
- [h] explicit device-to-host copies, each a wait for the GPU (``core.pyx``);
  also ``asnumpy``, ``.tolist()``, ``.tobytes()``, ``.dump()``, pickling,
  ``float``, ``int``, ``complex``, ``bool``, ``str``, ``repr``, ``format``, and
  NumPy functions whose output is on the host (``numpy.save``,
  ``numpy.array2string``...), all counted by ``SyncCounter``.

**Copies are counted both ways.** A :class:`TransferCounter` (from
:mod:`course.transfers`, importable here) counts every copy: the downloads
above (``READ_METHODS`` names the methods) and the uploads, host to device:
``fake_cupy.asarray`` and ``fake_cupy.array`` of host data, ``to_device``,
``DeviceArray(host_array)`` and unpickling. Work on the device, results wrapped
as device arrays, and copies from device to device count nothing.

**Where the data lives.** A device array is a handle: its data is in the
simulated GPU's store (:mod:`course.simstore`), which runs every op and counts
every copy, sync and launch. Grading runs the store in a process of the
grader's, so the counts a test judges are taken where the answer's code cannot
reach them; a lesson on a laptop runs it in its own process, by the same rules.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from course.devicearray import DeviceArray, DeviceObject, call, request
from course.devicecalls import IMPLICIT, READ_METHODS, caller
from course.simlink import connection, encode
from course.transfers import Transfer, TransferCounter

__all__ = [
    "READ_METHODS",
    "DeviceArray",
    "DeviceObject",
    "Transfer",
    "TransferCounter",
    "fake_cupy",
    "to_device",
]


class _Namespace(types.ModuleType):
    """Mirror a NumPy namespace; its functions run on the simulated GPU."""

    def __init__(self, name: str, target: Any) -> None:
        super().__init__(name)
        self._target = target

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        if isinstance(value, types.ModuleType):
            return _Namespace(f"{self.__name__}.{attr}", value)
        if isinstance(value, type) or not callable(value):
            return value  # dtypes, constants, classes
        return _wrap_callable(value, f"{self._target.__name__}.{attr}")


def _wrap_callable(fn: Any, path: str) -> Any:
    def run(*args: Any, **kwargs: Any) -> Any:
        return call(_link_of((args, kwargs)) or connection(), path, args, kwargs)

    run.__name__ = getattr(fn, "__name__", "function")
    run.__doc__ = getattr(fn, "__doc__", None)
    return run


def _link_of(value: Any) -> Any:
    """The store of the first device array in ``value``, else this process's."""
    if isinstance(value, DeviceArray):
        return value._link
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _link_of(item)
            if found is not None:
                return found
    elif isinstance(value, dict):
        return _link_of(list(value.values()))
    return None


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _to_device(a: Any, dtype: Any, op: str) -> DeviceArray:
    """Copy host data to the (simulated) device: the explicit host-to-device path,
    one upload counted as ``op``.

    A (nested) sequence of device arrays is joined on the device, as CuPy does; a
    sequence mixing device arrays with host values is an implicit conversion.
    """
    link = connection()
    if isinstance(a, DeviceArray):
        return a if dtype is None else a.astype(dtype)
    if isinstance(a, (list, tuple)):
        leaves = _leaves(a)
        on_device = [isinstance(leaf, DeviceArray) for leaf in leaves]
        if any(on_device):
            if not all(on_device):
                raise TypeError(IMPLICIT)
            return request(leaves[0]._link, "join", encode(a), encode(dtype))
    if isinstance(a, DeviceObject):
        raise TypeError(IMPLICIT)
    data = np.array(a, dtype=dtype, copy=True)
    return request(link, "upload", op, caller(), encode(data))


def _asarray(a: Any, dtype: Any = None) -> DeviceArray:
    """Copy host data to the device (a device array is returned as it is)."""
    return _to_device(a, dtype, "fake_cupy.asarray")


def _array(a: Any, dtype: Any = None, copy: bool = True) -> DeviceArray:
    """Copy host data to the device; a device array is copied on the device."""
    if isinstance(a, DeviceArray) and copy:
        return a.astype(dtype) if dtype is not None else a.copy()
    return _to_device(a, dtype, "fake_cupy.array")


def _asnumpy(a: Any) -> np.ndarray:
    """Copy device data to the host: the explicit device-to-host path."""
    if isinstance(a, DeviceArray):
        return a._download("fake_cupy.asnumpy")
    return np.asarray(a)


def _get_array_module(*arrays: Any) -> types.ModuleType:
    return fake_cupy if any(isinstance(a, DeviceArray) for a in arrays) else np


fake_cupy = _Namespace("fake_cupy", np)
fake_cupy.asarray = _asarray
fake_cupy.array = _array
fake_cupy.asnumpy = _asnumpy
fake_cupy.ndarray = DeviceArray
fake_cupy.get_array_module = _get_array_module
fake_cupy.__doc__ = "CuPy's rules on NumPy data; see course.fakecupy."


def to_device(a: Any) -> DeviceArray:
    """Copy host data to the simulated device (as ``fake_cupy.asarray`` does)."""
    return _to_device(a, None, "to_device")
