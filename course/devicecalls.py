"""Requests to the simulated GPU's store, and their answers as device objects.

:mod:`course.devicearray` and :mod:`course.fakecupy` make every op, copy and
read a request (:func:`request`, :func:`call`) to the store
(:mod:`course.simstore`); the store's answer comes back as device arrays and
:class:`DeviceObject` handles (:func:`answer`). A NumPy array of the host met
in an op is refused first (:func:`no_host_arrays`), as CuPy refuses it.
"""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np

from course.simlink import Connection, Ref, decode, encode

#: NumPy functions whose output is on the host: each device array is copied home.
_HOST_FUNCTIONS = frozenset(
    {"save", "savez", "savez_compressed", "savetxt"}
    | {"array2string", "array_repr", "array_str"}
)
#: NumPy functions that answer a Python bool; CuPy answers a 0-d device array.
_DEVICE_BOOLS = frozenset({"allclose", "array_equal", "array_equiv"})

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


def answer(node: Any, link: Connection) -> Any:
    """The store's answer as values here: handles become device arrays."""

    def ref(key: Any) -> Any:  # the store answers new handles only as "r"
        raise ValueError("the store answered a bare handle")

    value = decode(node, ref)
    return _adopted(value, link)


def _adopted(value: Any, link: Connection) -> Any:
    from course.devicearray import DeviceArray

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


def path_of(fn: Any) -> str:
    """``numpy.linalg.norm`` for NumPy's function objects."""
    name = getattr(fn, "__name__", "")
    for module in (np, np.linalg, np.random, np.fft):
        if getattr(module, name, None) is fn:
            return f"{module.__name__}.{name}"
    return f"{getattr(fn, '__module__', '?')}.{name}"


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
    from course.devicearray import DeviceArray

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

__all__ = [
    "DeviceObject",
    "answer",
    "call",
    "caller",
    "no_host_arrays",
    "path_of",
    "request",
]
