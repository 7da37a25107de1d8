"""The array module (``xp``) behind the NumPy/CuPy lessons, and conversions.

Code in the array lessons is written once against ``xp``: NumPy on the CPU, CuPy
on an NVIDIA GPU. Two rules keep it portable:

* choose the module once, with :func:`get_xp`, when you create data;
* inside functions, take the module *from the data* with :func:`array_module`,
  so a function given NumPy arrays answers with NumPy arrays and one given CuPy
  arrays answers with CuPy arrays.

Set ``COURSE_FORCE_CPU=1`` to make :func:`get_xp` return NumPy on a GPU machine:
that is how a GPU box reproduces exactly what a laptop runs.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np

from course.devices import cupy_status


def get_xp(prefer: str | None = None) -> ModuleType:
    """Return the array module to create data with: ``cupy`` or ``numpy``.

    Args:
        prefer: ``None`` (CuPy when it can really run, else NumPy), ``"numpy"``
            or ``"cupy"``.

    Raises:
        ValueError: ``prefer`` is not one of the names above.
        RuntimeError: ``"cupy"`` was asked for but cannot run here; the message
            says why and how to fall back.
    """
    if prefer not in (None, "numpy", "cupy"):
        raise ValueError(f"prefer must be None, 'numpy' or 'cupy', not {prefer!r}")
    if prefer == "numpy":
        return np
    status = cupy_status()
    if status.usable:
        import cupy

        return cupy
    if prefer == "cupy":
        raise RuntimeError(
            f"CuPy was asked for but cannot be used: {status.reason}. "
            "Use get_xp() (no argument) to fall back to NumPy, or run on a GPU "
            "machine with `pip install -e .[gpu]`."
        )
    return np


def backend_name(xp: ModuleType | None = None) -> str:
    """Return ``"cupy"`` or ``"numpy"`` for a module (default: :func:`get_xp`)."""
    xp = get_xp() if xp is None else xp
    return xp.__name__.split(".")[0]


def _is_cupy_array(x: Any) -> bool:
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(x, cupy.ndarray)


def _is_simulated(x: Any) -> bool:
    fake = sys.modules.get("course.fakecupy")
    return fake is not None and isinstance(x, fake.DeviceArray)


def _is_torch_tensor(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def array_module(*arrays: Any) -> ModuleType:
    """Return the module that owns the arrays: ``cupy`` if any is a CuPy array.

    The same idea as ``cupy.get_array_module``, but it works where CuPy is not
    installed, and it returns :data:`course.fakecupy.fake_cupy` for the simulated
    device arrays that tests use on machines without a GPU.
    """
    if any(_is_cupy_array(a) for a in arrays):
        return sys.modules["cupy"]
    if any(_is_simulated(a) for a in arrays):
        return sys.modules["course.fakecupy"].fake_cupy
    return np


def host_copy(x: Any) -> np.ndarray:
    """Copy an array to the host as a NumPy array (NumPy arrays come back as is).

    For the array lessons' data: NumPy arrays, CuPy arrays and the simulated
    device arrays of :mod:`course.fakecupy` (each copied device-to-host once),
    and plain numbers and lists. A torch tensor is refused: write
    ``tensor.detach().cpu().numpy()``, which says what it does (Day 05 asks you
    to write a ``to_numpy`` that accepts tensors too).

    Raises:
        TypeError: ``x`` is a torch tensor.
    """
    if isinstance(x, np.ndarray):
        return x
    if _is_cupy_array(x) or _is_simulated(x):
        return x.get()
    if _is_torch_tensor(x):
        raise TypeError(
            "host_copy takes NumPy/CuPy arrays; for a torch tensor write "
            "tensor.detach().cpu().numpy()"
        )
    return np.asarray(x)


def as_numpy(x: Any) -> np.ndarray:
    """Any array-like as a NumPy array, tensors too (for the checks and plots)."""
    if _is_torch_tensor(x):
        return x.detach().cpu().numpy()
    return host_copy(x)


def device_of(x: Any) -> str:
    """Name the device an array or tensor lives on: ``"cpu"``, ``"cuda:0"``...

    NumPy arrays and plain Python values live on the ``"cpu"``; simulated device
    arrays (:mod:`course.fakecupy`) on ``"simgpu:0"``.
    """
    if _is_torch_tensor(x):
        device = x.device
        if device.type == "cpu":
            return "cpu"
        return f"{device.type}:{device.index if device.index is not None else 0}"
    if _is_cupy_array(x):
        return f"cuda:{x.device.id}"
    if _is_simulated(x):
        return x.device
    return "cpu"


#: What the module offers. ``as_numpy`` is the course's own (its checks and
#: plots read values with it): it converts a tensor too, which is Day 05's
#: ``to_numpy``, so it is not offered, and the probe leaves it out.
__all__ = ["array_module", "backend_name", "device_of", "get_xp", "host_copy"]
