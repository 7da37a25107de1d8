"""Find out which devices this machine has, and pick the best one.

PyTorch sees devices through ``torch.cuda`` (NVIDIA), ``torch.backends.mps``
(Apple silicon) and the CPU, which is always there. CuPy only speaks CUDA, and can
be installed on a machine that has no driver at all, so :func:`cupy_status` tries
it for real instead of trusting ``import cupy``.

Nothing here raises because a GPU is missing: every function answers on a laptop
without one, which is where most students start.
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass
from typing import Any

import torch

from course.env import force_cpu

GIB = 1024**3


@dataclass(frozen=True)
class DeviceChoice:
    """A device together with the reason it was chosen."""

    device: torch.device
    reason: str


def mps_available() -> bool:
    """Return True when PyTorch can use Apple's Metal (MPS) backend."""
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def choose_device() -> DeviceChoice:
    """Pick the best available torch device (cuda, then mps, then cpu) and say why.

    It takes no preference on purpose: choosing between a preference and a
    fallback is Day 01's Task 1.1, written by the student.

    Returns:
        A :class:`DeviceChoice` with the ``torch.device`` and a one-line reason.
        ``COURSE_FORCE_CPU=1`` in the environment always gives the CPU.
    """
    if force_cpu():
        return DeviceChoice(torch.device("cpu"), "COURSE_FORCE_CPU is set")
    if torch.cuda.is_available():
        return DeviceChoice(
            torch.device("cuda", 0), "an NVIDIA GPU is available (torch.cuda)"
        )
    if mps_available():
        return DeviceChoice(
            torch.device("mps"), "Apple's MPS backend is available (no CUDA GPU)"
        )
    return DeviceChoice(torch.device("cpu"), "no GPU is available, using the CPU")


def pick_device() -> torch.device:
    """Return the best available torch device; see :func:`choose_device`."""
    return choose_device().device


def cpu_name() -> str:
    """Return a readable name for this machine's CPU."""
    name = platform.processor() or platform.machine() or "CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{name} ({os.cpu_count()} logical cores)"


def describe_device(device: torch.device | str) -> dict[str, Any]:
    """Describe a torch device as a dict of named fields.

    Fields: ``device``, ``type``, ``name``, ``total_memory_gb``,
    ``free_memory_gb``, ``compute_capability``, ``multiprocessors``,
    ``cuda_runtime``. Fields that make no sense for the device are ``None``.
    """
    device = torch.device(device)
    info: dict[str, Any] = {
        "device": str(device),
        "type": device.type,
        "name": cpu_name() if device.type == "cpu" else device.type.upper(),
        "total_memory_gb": None,
        "free_memory_gb": None,
        "compute_capability": None,
        "multiprocessors": None,
        "cuda_runtime": None,
    }
    if device.type == "cuda":
        index = device.index if device.index is not None else 0
        props = torch.cuda.get_device_properties(index)
        free, total = torch.cuda.mem_get_info(index)
        info.update(
            device=f"cuda:{index}",
            name=props.name,
            total_memory_gb=round(total / GIB, 2),
            free_memory_gb=round(free / GIB, 2),
            compute_capability=f"{props.major}.{props.minor}",
            multiprocessors=props.multi_processor_count,
            cuda_runtime=torch.version.cuda,
        )
    elif device.type == "mps":
        info["name"] = "Apple GPU (Metal Performance Shaders)"
    return info


@dataclass(frozen=True)
class CupyStatus:
    """Whether CuPy is installed, and whether it can really run on a GPU."""

    installed: bool
    usable: bool
    version: str | None
    reason: str
    driver_version: str | None = None
    runtime_version: str | None = None


def _cuda_version(code: int) -> str:
    """Turn CUDA's integer version (12040) into text ("12.4")."""
    return f"{code // 1000}.{(code % 1000) // 10}"


@functools.lru_cache(maxsize=1)
def _probe_cupy() -> CupyStatus:
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken install
        return CupyStatus(False, False, None, f"CuPy is not installed ({exc})")
    version = getattr(cupy, "__version__", None)
    try:
        count = cupy.cuda.runtime.getDeviceCount()
        if count < 1:
            return CupyStatus(True, False, version, "CuPy found no CUDA device")
        # A real kernel: catches a missing NVRTC or a driver too old to run it.
        value = int(cupy.arange(4).sum())
        if value != 6:
            return CupyStatus(True, False, version, "CuPy computed a wrong sum")
        driver = _cuda_version(cupy.cuda.runtime.driverGetVersion())
        runtime = _cuda_version(cupy.cuda.runtime.runtimeGetVersion())
    except Exception as exc:
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return CupyStatus(
            True,
            False,
            version,
            f"CuPy is installed but cannot use a GPU: {first_line}",
        )
    return CupyStatus(
        True, True, version, f"{count} CUDA device(s) usable", driver, runtime
    )


def cupy_status() -> CupyStatus:
    """Report whether CuPy is installed and can really run kernels on a GPU.

    Never raises. The probe runs once per process (it costs a CUDA context); the
    ``COURSE_FORCE_CPU`` switch is read on every call.
    """
    status = _probe_cupy()
    if status.usable and force_cpu():
        return CupyStatus(
            status.installed,
            False,
            status.version,
            "COURSE_FORCE_CPU is set",
            status.driver_version,
            status.runtime_version,
        )
    return status


def cupy_usable() -> bool:
    """Return True when CuPy is installed and has a working CUDA device."""
    return cupy_status().usable


def format_table(rows: list[tuple[str, Any]], title: str | None = None) -> str:
    """Format ``(name, value)`` pairs as a two-column text table."""
    width = max((len(name) for name, _ in rows), default=0)
    lines = [title, "-" * len(title)] if title else []
    for name, value in rows:
        shown = "-" if value is None else value
        lines.append(f"{name.ljust(width)}  {shown}")
    return "\n".join(lines)


def device_table(device: torch.device | str) -> str:
    """Describe a device as a readable two-column table."""
    info = describe_device(device)
    return format_table(list(info.items()), title=f"Device {info['device']}")


def pick_amp(device: torch.device | str) -> tuple[torch.dtype | None, bool]:
    """(autocast dtype, whether a ``GradScaler`` is needed) for training on
    ``device`` (Day 10's rule; PyTorch documentation, "Automatic Mixed
    Precision package - torch.amp"):

    - CUDA compute capability 8.0 and later: bfloat16, no scaler (bfloat16
      tensor cores; float32's exponent range);
    - compute capability 7.x (V100, T4): float16 with a ``GradScaler``;
    - older GPUs (a GTX 10xx runs float16 at 1/64 of its float32 rate):
      ``(None, False)``, train in float32;
    - the CPU: bfloat16, so that autocast runs there (often slower than
      float32 unless the CPU has bfloat16 instructions, AVX512-BF16 or AMX);
    - anything else: ``(None, False)``.
    """
    device = torch.device(device)
    if device.type == "cuda":
        major, _ = torch.cuda.get_device_capability(device)
        if major >= 8:
            return torch.bfloat16, False
        return (torch.float16, True) if major == 7 else (None, False)
    return (torch.bfloat16, False) if device.type == "cpu" else (None, False)
