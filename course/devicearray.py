"""The simulated GPU's arrays: :class:`DeviceArray`, for :mod:`course.fakecupy`.

A :class:`DeviceArray` keeps NumPy data "on the device": NumPy functions and
operators compute on it and answer device arrays, and its data reaches the host
only through the methods of :data:`READ_METHODS` and NumPy functions whose output
is on the host, each one a copy counted by :class:`course.transfers.TransferCounter`
(and, as a synchronisation, by :class:`course.sync.SyncCounter`). The rules,
each with CuPy's source, are listed in :mod:`course.fakecupy`, which exports
these names.
"""

from __future__ import annotations

import os
import pickle
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from course.transfers import copying, record

#: The DeviceArray methods that copy data to the host: each call is one download
#: (TransferCounter) and one synchronisation (SyncCounter, which wraps them).
READ_METHODS = (
    "get",
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
#: NumPy functions whose output is on the host: each device array is copied home.
_HOST_FUNCTIONS = frozenset(
    {"save", "savez", "savez_compressed", "savetxt"}
    | {"array2string", "array_repr", "array_str"}
)
#: NumPy functions that answer a Python bool; CuPy answers a 0-d device array.
_DEVICE_BOOLS = frozenset({"allclose", "array_equal", "array_equiv"})

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
        return DeviceArray._adopt(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _downloaded(value: Any) -> Any:
    """Device arrays (also inside tuples, lists, dicts) copied to the host."""
    if isinstance(value, DeviceArray):
        return value.get()
    if isinstance(value, (list, tuple)):
        return type(value)(_downloaded(v) for v in value)
    if isinstance(value, dict):
        return {k: _downloaded(v) for k, v in value.items()}
    return value


def _call(fn: Any, args: Any, kwargs: dict) -> Any:
    """Call a NumPy function on device data, as CuPy's own would answer."""
    name = getattr(fn, "__name__", "")
    if name in _HOST_FUNCTIONS:  # the output is on the host: a copy home each
        return fn(*_downloaded(args), **_downloaded(kwargs))
    result = fn(*_unwrap(args), **_unwrap(kwargs))
    if name in _DEVICE_BOOLS:
        return DeviceArray._adopt(np.asarray(result))
    return _wrap(result)


def _download(name: str, size: Any = None) -> Any:
    """Decorator: the method copies the array home, ``size(array)`` bytes."""
    return copying("download", f"DeviceArray.{name}", size or _nbytes)


def _nbytes(array: DeviceArray, *args: Any, **kwargs: Any) -> int:
    return array._data.nbytes


def _itemsize(array: DeviceArray, *args: Any, **kwargs: Any) -> int:
    return array._data.itemsize


class DeviceArray(NDArrayOperatorsMixin):
    """NumPy data that behaves like a CuPy array living on a (simulated) GPU.

    Arithmetic, NumPy functions and methods work and return DeviceArrays;
    reductions return 0-d DeviceArrays, as CuPy's do. Values reach the host only
    through the methods of ``READ_METHODS`` (``.get()``, ``.item()``,
    ``float()``, printing...), ``fake_cupy.asnumpy`` and NumPy functions whose
    output is on the host, each a counted copy. ``DeviceArray(host_array)``
    puts ``host_array`` (not a copy) on the device: a counted upload.
    """

    __slots__ = ("_data",)
    device_name = "simgpu:0"

    def __init__(self, data: np.ndarray) -> None:
        self._data = np.asarray(data)
        record("upload", "DeviceArray", self._data.nbytes)

    @classmethod
    def _adopt(cls, data: np.ndarray) -> DeviceArray:
        """An array whose data is already on the device: no copy, no count."""
        array = cls.__new__(cls)
        array._data = data
        return array

    # NumPy protocols: compute on the data, keep results on the "device".
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        result = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        if out is not None:
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        return _call(func, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    # Everything else an ndarray has (shape, dtype, T, mean, reshape...).
    def __getattr__(self, name: str) -> Any:
        if name == "_data" or name.startswith("__"):
            # No __array_interface__ and friends: NumPy must not see the data.
            raise AttributeError(name)
        if name in ("data", "ctypes"):  # host memory views
            raise AttributeError(
                f"DeviceArray.{name}: device memory cannot be read on the host; "
                "copy the array with .get() first."
            )
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

    @property
    def flat(self) -> _FlatIter:
        """A flat view that indexes on the device (CuPy's ``cupy.flatiter``)."""
        return _FlatIter(self)

    def __copy__(self) -> DeviceArray:
        return DeviceArray._adopt(self._data.copy())  # device to device

    def __deepcopy__(self, memo: dict) -> DeviceArray:
        return DeviceArray._adopt(self._data.copy())

    # The explicit (and counted) ways back to the host: READ_METHODS.
    @_download("get")
    def get(self) -> np.ndarray:
        """Copy to the host as a NumPy array (a device-to-host transfer)."""
        return np.array(self._data, copy=True)

    @_download("item", _itemsize)
    def item(self, *args: Any) -> Any:
        """Copy one element to the host as a Python number."""
        return self._data.item(*args)

    @_download("tolist")
    def tolist(self) -> Any:
        """Copy to the host as nested Python lists."""
        return self._data.tolist()

    @_download("tobytes")
    def tobytes(self, order: str = "C") -> bytes:
        """Copy to the host as raw bytes."""
        return self._data.tobytes(order)

    @_download("tofile")
    def tofile(self, fid: Any, sep: str = "", format: str = "%s") -> None:
        """Copy to the host and write it to a file."""
        self._data.tofile(fid, sep, format)

    @_download("dump")
    def dump(self, file: Any) -> None:
        """Copy to the host and pickle it into ``file`` (a path or open file)."""
        if isinstance(file, (str, os.PathLike)):
            with open(file, "wb") as handle:
                pickle.dump(self, handle)
        else:
            pickle.dump(self, file)

    @_download("dumps")
    def dumps(self) -> bytes:
        """Copy to the host as a pickle."""
        return pickle.dumps(self)

    @_download("__reduce__")
    def __reduce__(self) -> tuple:
        # Pickling copies the data home; unpickling uploads it again.
        return (_unpickle, (np.array(self._data, copy=True),))

    @_download("__float__", _itemsize)
    def __float__(self) -> float:
        return float(self._data)

    @_download("__int__", _itemsize)
    def __int__(self) -> int:
        return int(self._data)

    @_download("__complex__", _itemsize)
    def __complex__(self) -> complex:
        return complex(self._data)

    @_download("__bool__", _itemsize)
    def __bool__(self) -> bool:
        return bool(self._data)

    @_download("__repr__")
    def __repr__(self) -> str:
        return "device_" + repr(self._data)

    @_download("__str__")
    def __str__(self) -> str:
        return str(self._data)

    @_download("__format__")
    def __format__(self, spec: str) -> str:
        return format(self._data, spec)

    @property
    def device(self) -> str:
        """Where the array lives (always the one simulated GPU)."""
        return self.device_name


def _unpickle(data: np.ndarray) -> DeviceArray:
    """A pickled device array, copied back to the device."""
    record("upload", "DeviceArray (unpickled)", data.nbytes)
    return DeviceArray._adopt(data)


class _FlatIter:
    """``d.flat``: its elements stay on the device."""

    __slots__ = ("_array",)

    def __init__(self, array: DeviceArray) -> None:
        self._array = array

    def __getitem__(self, key: Any) -> Any:
        return _wrap(self._array._data.flat[_unwrap_index(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._array._data.flat[_unwrap_index(key)] = _unwrap(value)

    def __len__(self) -> int:
        return self._array._data.size

    def __iter__(self):
        return (_wrap(value) for value in self._array._data.flat)


DeviceArray.__module__ = "course.fakecupy"  # its public home, as before the split
