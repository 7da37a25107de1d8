"""The simulated GPU's arrays: :class:`DeviceArray`, for :mod:`course.fakecupy`.

A :class:`DeviceArray` is a handle to data in the simulated GPU's store
(:mod:`course.simstore`, reached through :mod:`course.simlink`): NumPy functions
and operators on it are requests the store runs and answers with new device
arrays. Its data reaches the host only through the methods of
:data:`READ_METHODS`, ``fake_cupy.asnumpy`` and NumPy functions whose output is
on the host, each a download the store counts (a copy, and a synchronisation).
The requests are made here too (:func:`request`, :func:`call`), and the
store's answer comes back as device arrays and :class:`DeviceObject` handles
(:func:`answer`); what they share with the counters is
:mod:`course.devicecalls`, one layer down. The rules, each with CuPy's source,
are listed in :mod:`course.fakecupy`, which exports these names.
"""

from __future__ import annotations

import os
import pickle
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from course.devicecalls import (
    IMPLICIT,
    caller,
    no_host_arrays,
    path_of,
)
from course.simlink import Connection, Ref, connection, decode, encode

#: NumPy functions whose output is on the host: each device array is copied home.
_HOST_FUNCTIONS = frozenset(
    {"save", "savez", "savez_compressed", "savetxt"}
    | {"array2string", "array_repr", "array_str"}
)
#: NumPy functions that answer a Python bool; CuPy answers a 0-d device array.
_DEVICE_BOOLS = frozenset({"allclose", "array_equal", "array_equiv"})


class DeviceArray(NDArrayOperatorsMixin):
    """A handle to data that behaves like a CuPy array on a (simulated) GPU.

    Arithmetic, NumPy functions and methods work and return DeviceArrays;
    reductions return 0-d DeviceArrays, as CuPy's do. Values reach the host only
    through the methods of ``READ_METHODS`` (``.get()``, ``.item()``,
    ``float()``, printing...), ``fake_cupy.asnumpy`` and NumPy functions whose
    output is on the host, each a counted copy. ``DeviceArray(host_array)``
    copies ``host_array`` to the device: a counted upload.
    """

    __slots__ = ("_key", "_shape", "_dtype", "_link", "__weakref__")
    device_name = "simgpu:0"

    def __init__(self, data: Any) -> None:
        link = connection()
        host = np.asarray(data)
        ref = link.request(["upload", "DeviceArray", caller(), encode(host)])
        self._set(decode(ref, None), link)

    def _set(self, ref: Ref, link: Connection) -> None:
        self._key, self._link = ref.key, link
        self._shape = tuple(int(n) for n in ref.shape)
        self._dtype = np.dtype(ref.dtype)

    @classmethod
    def _from_ref(cls, ref: Ref, link: Connection | None = None) -> DeviceArray:
        """An array the store already holds: no copy, no count."""
        array = cls.__new__(cls)
        array._set(ref, link or connection())
        return array

    @staticmethod
    def _course_handle(array: DeviceArray) -> bytes:
        return array._key

    def __del__(self) -> None:
        try:
            self._link.frees.append(self._key)
        except Exception:  # noqa: BLE001 - at interpreter exit, or never set
            pass

    def _peek(self) -> np.ndarray:
        """The data, read without a count: only where this process holds the
        store's control (a local store, the grader's copies)."""
        return decode(self._link.request(["fetch", self._key]), None)

    def _download(self, op: str, index: Any = None) -> Any:
        node = self._link.request(["download", self._key, op, caller(), encode(index)])
        return decode(node, None)

    def _ask(self, *message: Any) -> Any:
        return request(self._link, *message)

    # Host-side metadata, as CuPy keeps it.
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return int(np.prod(self._shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def device(self) -> str:
        """Where the array lives (always the one simulated GPU)."""
        return self.device_name

    # NumPy protocols: the store computes; results stay on the "device".
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        no_host_arrays((inputs, {k: v for k, v in kwargs.items() if k != "out"}))
        out = kwargs.get("out")
        if out is not None:
            no_host_arrays(out)
        result = self._ask(
            "ufunc", ufunc.__name__, method, encode(inputs), encode(kwargs)
        )
        if out is not None:
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return result

    def __array_function__(self, func, types_, args, kwargs):
        return call(self._link, path_of(func), args, kwargs)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT)

    # Everything else an ndarray has (T, mean, reshape...): the store's methods.
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            # No __array_interface__ and friends: NumPy must not see the data.
            raise AttributeError(name)
        if name in ("data", "ctypes"):  # host memory views
            raise AttributeError(
                f"DeviceArray.{name}: device memory cannot be read on the host; "
                "copy the array with .get() first."
            )
        from course.simstore import METHODS

        if name not in METHODS:
            raise AttributeError(
                f"DeviceArray has no attribute {name!r} on the simulated GPU"
            )
        if not callable(getattr(np.ndarray, name, None)):
            return self._ask("method", self._key, name, encode(()), encode({}))

        def method(*args: Any, **kwargs: Any) -> Any:
            no_host_arrays((args, kwargs))
            return self._ask("method", self._key, name, encode(args), encode(kwargs))

        method.__name__ = name
        return method

    def __getitem__(self, key: Any) -> DeviceArray:
        return self._ask("getitem", self._key, encode(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        no_host_arrays(value)
        self._ask("setitem", self._key, encode(key), encode(value))

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    @property
    def flat(self) -> _FlatIter:
        """A flat view that indexes on the device (CuPy's ``cupy.flatiter``)."""
        return _FlatIter(self)

    def __copy__(self) -> DeviceArray:
        return self._ask("method", self._key, "copy", encode(()), encode({}))

    def __deepcopy__(self, memo: dict) -> DeviceArray:
        return self.__copy__()

    # The explicit (and counted) ways back to the host: READ_METHODS.
    def get(self) -> np.ndarray:
        """Copy to the host as a NumPy array (a device-to-host transfer)."""
        return self._download("DeviceArray.get")

    def copy_to_host(self, ary: Any = None, stream: Any = 0) -> np.ndarray:
        """numba's name for :meth:`get` (a device array from ``cuda.to_device``
        in :func:`course.cudasim.simulated_gpu`): into ``ary`` if given."""
        data = self._download("DeviceArray.copy_to_host")
        if ary is None:
            return data
        np.copyto(ary, data, casting="unsafe")
        return ary

    def item(self, *args: Any) -> Any:
        """Copy one element to the host as a Python number."""
        return self._download("DeviceArray.item", tuple(args))

    def tolist(self) -> Any:
        """Copy to the host as nested Python lists."""
        return self._download("DeviceArray.tolist").tolist()

    def tobytes(self, order: str = "C") -> bytes:
        """Copy to the host as raw bytes."""
        return self._download("DeviceArray.tobytes").tobytes(order)

    def tofile(self, fid: Any, sep: str = "", format: str = "%s") -> None:
        """Copy to the host and write it to a file."""
        self._download("DeviceArray.tofile").tofile(fid, sep, format)

    def dump(self, file: Any) -> None:
        """Copy to the host and pickle it into ``file`` (a path or open file)."""
        data = self._download("DeviceArray.dump")
        if isinstance(file, (str, os.PathLike)):
            with open(file, "wb") as handle:
                pickle.dump(_Pickled(data), handle)
        else:
            pickle.dump(_Pickled(data), file)

    def dumps(self) -> bytes:
        """Copy to the host as a pickle."""
        return pickle.dumps(_Pickled(self._download("DeviceArray.dumps")))

    def __reduce__(self) -> tuple:
        # Pickling copies the data home; unpickling uploads it again.
        return (_unpickle, (self._download("DeviceArray.__reduce__"),))

    def __float__(self) -> float:
        return float(self._download("DeviceArray.__float__"))

    def __int__(self) -> int:
        return int(self._download("DeviceArray.__int__"))

    def __complex__(self) -> complex:
        return complex(self._download("DeviceArray.__complex__"))

    def __bool__(self) -> bool:
        return bool(self._download("DeviceArray.__bool__"))

    def __repr__(self) -> str:
        return "device_" + repr(self._download("DeviceArray.__repr__"))

    def __str__(self) -> str:
        return str(self._download("DeviceArray.__str__"))

    def __format__(self, spec: str) -> str:
        return format(self._download("DeviceArray.__format__"), spec)


class _Pickled:
    """A device array's pickle: its host copy, uploaded again when loaded."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    def __reduce__(self) -> tuple:
        return (_unpickle, (self.data,))


def _unpickle(data: np.ndarray) -> DeviceArray:
    """A pickled device array, copied back to the device."""
    link = connection()
    ref = link.request(["upload", "DeviceArray (unpickled)", caller(), encode(data)])
    return DeviceArray._from_ref(decode(ref, None), link)


class _FlatIter:
    """``d.flat``: its elements stay on the device."""

    __slots__ = ("_array",)

    def __init__(self, array: DeviceArray) -> None:
        self._array = array

    def __getitem__(self, key: Any) -> Any:
        a = self._array
        return a._ask("getitem", a._key, encode(key), True)

    def __setitem__(self, key: Any, value: Any) -> None:
        no_host_arrays(value)
        a = self._array
        a._ask("setitem", a._key, encode(key), encode(value), True)

    def __len__(self) -> int:
        return self._array.size

    def __iter__(self):
        return (self[i] for i in range(self._array.size))


DeviceArray.__module__ = "course.fakecupy"  # its public home, as before the split


def answer(node: Any, link: Connection) -> Any:
    """The store's answer as values here: handles become device arrays."""

    def ref(key: Any) -> Any:  # the store answers new handles only as "r"
        raise ValueError("the store answered a bare handle")

    value = decode(node, ref)
    return _adopted(value, link)


def _adopted(value: Any, link: Connection) -> Any:
    if isinstance(value, Ref):
        if value.shape is None:
            return DeviceObject(value, link)
        return DeviceArray._from_ref(value, link)
    if type(value) is tuple:
        return tuple(_adopted(v, link) for v in value)
    if type(value) is list:
        return [_adopted(v, link) for v in value]
    return value


def request(link: Connection, *message: Any) -> Any:
    return answer(link.request(list(message)), link)


def call(link: Connection, path: str, args: Any, kwargs: dict) -> Any:
    """A NumPy function on device data, run by the store."""
    name = path.rsplit(".", 1)[-1]
    if name in _HOST_FUNCTIONS:  # the output is on the host: a copy home each
        fn = getattr(np, name)
        return fn(*_downloaded(args, name), **_downloaded(kwargs, name))
    no_host_arrays((args, kwargs))
    result = request(link, "call", path, encode(tuple(args)), encode(kwargs))
    if name in _DEVICE_BOOLS and isinstance(result, (bool, np.bool_)):
        return request(link, "call", "numpy.asarray", encode((result,)), encode({}))
    return result


def _downloaded(value: Any, name: str) -> Any:
    """Device arrays (also inside tuples, lists, dicts) copied to the host."""
    if isinstance(value, DeviceArray):
        return value._download("DeviceArray.get")
    if isinstance(value, (list, tuple)):
        return type(value)(_downloaded(v, name) for v in value)
    if isinstance(value, dict):
        return {k: _downloaded(v, name) for k, v in value.items()}
    return value


class DeviceObject:
    """An object that lives on the simulated GPU (a random generator): its
    methods run there and answer device arrays."""

    __slots__ = ("_ref", "_link", "__weakref__")

    def __init__(self, ref: Ref, link: Connection) -> None:
        self._ref, self._link = ref, link

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)

        def method(*args: Any, **kwargs: Any) -> Any:
            no_host_arrays((args, kwargs))
            key = self._ref.key  # the closure keeps the object alive
            return request(
                self._link, "method", key, name, encode(args), encode(kwargs)
            )

        method.__name__ = name
        return method

    def __del__(self) -> None:
        try:
            self._link.frees.append(self._ref.key)
        except Exception:  # noqa: BLE001 - at interpreter exit
            pass

    def __repr__(self) -> str:
        return f"<{self._ref.kind} on simgpu:0>"


DeviceObject.__module__ = "course.fakecupy"  # its public home


__all__ = ["DeviceArray", "DeviceObject", "answer", "call", "request"]
