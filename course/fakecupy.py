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
  also ``asnumpy``, ``.tolist()``, ``float``, ``int`` and ``bool``, all counted
  by ``SyncCounter``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

_IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
    "construct a NumPy array explicitly."
)


def _mixing_error(value: Any) -> TypeError:
    return TypeError(
        f"Unsupported type {type(value)}: a host (NumPy) array cannot meet a device "
        "array in one operation. Copy it to the device with xp.asarray(...) first, "
        "or create it with xp instead of numpy."
    )


def _unwrap(value: Any) -> Any:
    """Turn DeviceArrays (also inside tuples, lists, dicts) into plain ndarrays.

    Raises TypeError for a plain NumPy array that is not a scalar: that is mixing.
    """
    if isinstance(value, DeviceArray):
        return value._data
    if isinstance(value, np.ndarray):
        raise _mixing_error(value)  # 0-d too: CuPy takes scalars, not arrays
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _unwrap_index(key: Any) -> Any:
    """Unwrap DeviceArrays in an index; NumPy index arrays are allowed."""
    if isinstance(key, DeviceArray):
        return key._data
    if isinstance(key, tuple):
        return tuple(_unwrap_index(k) for k in key)
    return key


def _wrap(value: Any) -> Any:
    """Turn NumPy results (arrays and scalars) into DeviceArrays, as CuPy returns."""
    if isinstance(value, (np.ndarray, np.generic)):
        return DeviceArray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class DeviceArray(NDArrayOperatorsMixin):
    """NumPy data that behaves like a CuPy array living on a (simulated) GPU.

    Arithmetic, NumPy functions and methods work and return DeviceArrays;
    reductions return 0-d DeviceArrays, as CuPy's do. Values reach the host only
    through ``.get()``, ``.item()``, ``.tolist()``, ``float()``, ``int()``,
    ``bool()``, printing, or ``fake_cupy.asnumpy``.
    """

    __slots__ = ("_data",)
    device_name = "simgpu:0"

    def __init__(self, data: np.ndarray) -> None:
        self._data = data

    # NumPy protocols: compute on the data, keep results on the "device".
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        result = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        if out is not None:
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    # Everything else an ndarray has (shape, dtype, T, mean, reshape...).
    def __getattr__(self, name: str) -> Any:
        if name == "_data" or name.startswith("__"):
            # No __array_interface__ and friends: NumPy must not see the data.
            raise AttributeError(name)
        value = getattr(self._data, name)
        if callable(value):

            def method(*args: Any, **kwargs: Any) -> Any:
                return _wrap(value(*_unwrap(args), **_unwrap(kwargs)))

            return method
        return _wrap(value)

    def __getitem__(self, key: Any) -> DeviceArray:
        return _wrap(self._data[_unwrap_index(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[_unwrap_index(key)] = _unwrap(value)

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self):
        return (_wrap(row) for row in self._data)

    # The explicit (and counted) ways back to the host.
    def get(self) -> np.ndarray:
        """Copy to the host as a NumPy array (a device-to-host transfer)."""
        return np.array(self._data, copy=True)

    def item(self, *args: Any) -> Any:
        """Copy one element to the host as a Python number."""
        return self._data.item(*args)

    def tolist(self) -> Any:
        """Copy to the host as nested Python lists."""
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __repr__(self) -> str:
        return "device_" + repr(self._data)

    def __str__(self) -> str:
        return str(self._data)

    def __format__(self, spec: str) -> str:
        return format(self._data, spec)

    @property
    def device(self) -> str:
        """Where the array lives (always the one simulated GPU)."""
        return self.device_name


class _Namespace(types.ModuleType):
    """Mirror a NumPy namespace; functions take and return device arrays."""

    def __init__(self, name: str, target: Any) -> None:
        super().__init__(name)
        self._target = target

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        if isinstance(value, types.ModuleType):
            return _Namespace(f"{self.__name__}.{attr}", value)
        if isinstance(value, type) or not callable(value):
            return value  # dtypes, constants, classes
        return _wrap_callable(value)


def _wrap_callable(fn: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        result = fn(*_unwrap(args), **_unwrap(kwargs))
        if isinstance(result, np.random.Generator):
            return _Object(result)
        return _wrap(result)

    call.__name__ = getattr(fn, "__name__", "function")
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


class _Object:
    """Wraps objects such as random generators so their results are device arrays."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        return _wrap_callable(value) if callable(value) else value


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _device_sequence(value: Any) -> Any:
    """A nested list of device arrays as nested lists of their data."""
    if isinstance(value, (list, tuple)):
        return [_device_sequence(item) for item in value]
    return value._data


def _asarray(a: Any, dtype: Any = None) -> DeviceArray:
    """Copy host data to the (simulated) device: the explicit host-to-device path.

    A (nested) sequence of device arrays is joined on the device, as CuPy does; a
    sequence mixing device arrays with host values is an implicit conversion.
    """
    if isinstance(a, DeviceArray):
        return a if dtype is None else a.astype(dtype)
    if isinstance(a, (list, tuple)):
        leaves = _leaves(a)
        on_device = [isinstance(leaf, DeviceArray) for leaf in leaves]
        if any(on_device):
            if not all(on_device):
                raise TypeError(_IMPLICIT)
            return DeviceArray(np.array(_device_sequence(a), dtype=dtype))
    return DeviceArray(np.array(a, dtype=dtype, copy=True))


def _asnumpy(a: Any) -> np.ndarray:
    """Copy device data to the host: the explicit device-to-host path."""
    if isinstance(a, DeviceArray):
        return a.get()
    return np.asarray(a)


def _get_array_module(*arrays: Any) -> types.ModuleType:
    return fake_cupy if any(isinstance(a, DeviceArray) for a in arrays) else np


fake_cupy = _Namespace("fake_cupy", np)
fake_cupy.asarray = _asarray
fake_cupy.array = _asarray
fake_cupy.asnumpy = _asnumpy
fake_cupy.ndarray = DeviceArray
fake_cupy.get_array_module = _get_array_module
fake_cupy.__doc__ = "CuPy's rules on NumPy data; see course.fakecupy."


def to_device(a: Any) -> DeviceArray:
    """Copy host data to the simulated device (same as ``fake_cupy.asarray``)."""
    return _asarray(a)
