"""numba-cuda kernel launches from the student's process to the simulated
GPU's store (:mod:`course.simkernels` runs them there).

:func:`run_on_store` sends each launch of numba's simulator, and
``cuda.to_device`` and its kin, to the store; :func:`launch_on_store` sends
one launch and writes what came back into the host and device arrays. A
kernel's error comes back raised from a frame at the student's kernel.
"""

from __future__ import annotations

import builtins
import secrets
from typing import Any

import numpy as np

from course.simkernels import HERE, running
from course.simlink import decode, encode

# --- in the student's process -------------------------------------------------


def _kind(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return "host"
    if getattr(type(value), "_course_handle", None) is not None:
        return "store"  # an array the store holds: the kernel writes it there
    if hasattr(value, "copy_to_host") and hasattr(value, "_ary"):
        return "device"  # the simulator's cuda.to_device array
    return "value"


def launch_on_store(kernel: Any, args: tuple, source: str, link: Any) -> None:
    """Launch simulated ``kernel`` (configured with its grid) on ``link``'s
    store, then write what came back into the host and device arrays."""
    __tracebackhide__ = True  # IPython shows the student's frames, not these
    grid = [int(g) for g in kernel.grid_dim]
    block = [int(b) for b in kernel.block_dim]
    name = getattr(kernel.fn, "__name__", "?")
    nodes = []
    for value in args:
        kind = _kind(value)
        data = value._ary if kind == "device" else value
        nodes.append([kind, encode(data)])
    shared = int(getattr(kernel, "dynshared_size", 0) or 0)
    token = secrets.token_hex(16)  # the kernel itself, for a store in this process
    HERE[token] = kernel
    try:
        reply = link.request(
            ["launch", name, source, grid, block, shared, nodes, token]
        )
    finally:
        HERE.pop(token, None)
    if reply[0] == "raised":
        _raise_in(kernel.fn, _raised(str(reply[1]), str(reply[2]), name))
    for value, node in zip(args, reply[1]):
        if node is None:
            continue
        target = value._ary if _kind(value) == "device" else value
        np.copyto(target, decode(node, None), casting="unsafe")


def run_on_store(link: Any) -> Any:
    """From now on, numba simulator launches (and ``cuda.to_device``,
    ``device_array``, ``device_array_like``) go to ``link``'s store. Returns a
    function that puts numba back as it was."""
    from numba import cuda
    from numba.cuda.simulator import kernel as simulated

    from course.kernelsource import kernel_module

    launch = simulated.FakeCUDAKernel.__call__

    def on_store(self: Any, *args: Any) -> Any:
        __tracebackhide__ = True
        if self._device or simulated._kernel_context or running():
            return launch(self, *args)  # a device function, or the store's run
        return launch_on_store(self, args, kernel_module(self), link)

    saved = {name: getattr(cuda, name) for name in _ALLOCATORS}
    for name, make in _allocators(link).items():
        setattr(cuda, name, make)
    simulated.FakeCUDAKernel.__call__ = on_store

    def stop() -> None:
        simulated.FakeCUDAKernel.__call__ = launch
        for name, value in saved.items():
            setattr(cuda, name, value)

    return stop


_ALLOCATORS = ("to_device", "device_array", "device_array_like")


def _allocators(link: Any) -> dict[str, Any]:
    """numba's ways to make device arrays, as arrays the store holds."""
    from course.devicearray import request
    from course.devicecalls import caller

    def to_device(ary: Any, stream: Any = 0, copy: bool = True, to: Any = None):
        data = np.array(ary, copy=True)
        return request(link, "upload", "cuda.to_device", caller(), encode(data))

    def device_array(shape: Any, dtype: Any = np.float64, *_: Any, **__: Any):
        # Uninitialised on a GPU: here floats start as NaN, so an answer that
        # counts on zeros fails here as it would there.
        kind = np.dtype(dtype)
        fill = np.nan if kind.kind in "fc" else 0
        return request(
            link,
            "call",
            "numpy.full",
            encode((shape, fill)),
            encode({"dtype": kind.str}),
        )

    def device_array_like(ary: Any, stream: Any = 0) -> Any:
        return device_array(tuple(ary.shape), np.dtype(ary.dtype))

    return dict(zip(_ALLOCATORS, (to_device, device_array, device_array_like)))


def _raiser(_error: BaseException) -> None:
    raise _error


def _raise_in(function: Any, error: BaseException) -> None:
    """Raise ``error`` (the kernel's, from the store) from a frame at the
    student's kernel, the line after its first (a decorator's: the ``def``),
    not in this module, whose frames IPython hides (``__tracebackhide__``)."""
    __tracebackhide__ = True
    import types

    code = getattr(function, "__code__", None)
    try:  # co_qualname: Python 3.11+
        names = ("co_filename", "co_name", "co_qualname", "co_firstlineno")
        found = {name: getattr(code, name) for name in names if hasattr(code, name)}
        at = _raiser.__code__.replace(**found) if found else None  # None: raise
        raising = types.FunctionType(at, {})
    except (AttributeError, TypeError, ValueError):
        raise error from None
    raising(error.with_traceback(None))


def _raised(kind: str, text: str, name: str = "?") -> BaseException:
    """The exception the kernel raised in the store, as this process's own;
    an index past an array's end says what to do about it."""
    from course import racecheck
    from course.i18n import say

    if kind == "IndexError":
        text = say(
            "{error} (kernel {name}: a thread read or wrote past an array's "
            "end; guard each index with the array's length, as in "
            "`if i < out.shape[0]:`)",
            error=text,
            name=name,
        )

    found = getattr(racecheck, kind, None) or getattr(builtins, kind, None)
    if isinstance(found, type) and issubclass(found, Exception):
        try:
            return found(text)
        except TypeError:
            pass
    return RuntimeError(f"{kind}: {text}")


__all__ = ["launch_on_store", "run_on_store"]
