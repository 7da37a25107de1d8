"""Pretend a machine has (or lacks) a GPU, so both code paths can be tested anywhere.

Tests and exercises use :func:`simulate_hardware` to check the GPU branch of
device-handling code on a laptop, and the CPU branch on a GPU box::

    from course.simulate import FakeGPU, simulate_hardware

    with simulate_hardware(gpus=[FakeGPU()]):
        torch.cuda.is_available()        # True, even without a GPU

Only the *queries* are simulated (availability, names, properties, memory).
Allocating a tensor on the fake GPU still fails: nothing can compute there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any
from unittest import mock

import torch

GIB = 1024**3


@dataclass
class FakeGPU:
    """The properties a simulated CUDA device reports."""

    name: str = "NVIDIA H200"
    total_memory: int = 140 * GIB
    free_memory: int = 138 * GIB
    allocated: int = 512 * 1024**2
    reserved: int = 1 * GIB
    major: int = 9
    minor: int = 0
    multi_processor_count: int = 132


@dataclass
class SimulatedHardware:
    """What a simulation exposes to the test that runs it."""

    gpus: list[FakeGPU]
    mps: bool
    synchronize_calls: list[int] = field(default_factory=list)


def _index(device: Any, count: int) -> int:
    """Resolve torch's many ways of naming a CUDA device to an index."""
    if device is None:
        index = 0
    elif isinstance(device, int):
        index = device
    else:
        parsed = torch.device(device)
        if parsed.type != "cuda":
            raise ValueError(f"Expected a CUDA device, got {device!r}")
        index = parsed.index or 0
    if not 0 <= index < count:
        raise RuntimeError(
            f"Invalid device id {index}: this (simulated) machine has {count} GPU(s)"
        )
    return index


@contextlib.contextmanager
def simulate_hardware(
    gpus: Sequence[FakeGPU] = (), mps: bool = False, cuda_version: str = "12.8"
) -> Iterator[SimulatedHardware]:
    """Make ``torch.cuda`` and ``torch.backends.mps`` report the given hardware.

    Args:
        gpus: the simulated CUDA devices; empty means "no CUDA GPU".
        mps: whether Apple's MPS backend reports itself available.
        cuda_version: what ``torch.version.cuda`` says while GPUs are simulated.

    Yields:
        A :class:`SimulatedHardware` whose ``synchronize_calls`` records every
        ``torch.cuda.synchronize`` call (by device index).
    """
    state = SimulatedHardware(list(gpus), mps)
    count = len(state.gpus)

    def gpu(device: Any = None) -> FakeGPU:
        if count == 0:
            raise RuntimeError("Found no NVIDIA driver on your system (simulated)")
        return state.gpus[_index(device, count)]

    def properties(device: Any = None) -> SimpleNamespace:
        g = gpu(device)
        return SimpleNamespace(
            name=g.name,
            total_memory=g.total_memory,
            major=g.major,
            minor=g.minor,
            multi_processor_count=g.multi_processor_count,
        )

    def synchronize(device: Any = None) -> None:
        gpu(device)
        state.synchronize_calls.append(_index(device, count))

    patches = {
        "is_available": lambda: count > 0,
        "device_count": lambda: count,
        "current_device": lambda: 0 if count else gpu(),
        "get_device_name": lambda device=None: gpu(device).name,
        "get_device_properties": properties,
        "get_device_capability": lambda device=None: (
            gpu(device).major,
            gpu(device).minor,
        ),
        "mem_get_info": lambda device=None: (
            gpu(device).free_memory,
            gpu(device).total_memory,
        ),
        "memory_allocated": lambda device=None: gpu(device).allocated,
        "memory_reserved": lambda device=None: gpu(device).reserved,
        "synchronize": synchronize,
    }
    with contextlib.ExitStack() as stack:
        for name, fake in patches.items():
            stack.enter_context(mock.patch.object(torch.cuda, name, fake))
        stack.enter_context(
            mock.patch.object(torch.backends.mps, "is_available", lambda: mps)
        )
        stack.enter_context(
            mock.patch.object(torch.version, "cuda", cuda_version if count else None)
        )
        yield state
