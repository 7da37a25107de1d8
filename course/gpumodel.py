"""A transparent GPU cost model: what a run's operations would cost on named GPUs.

Every figure this module gives is **modelled, not measured**. It lets a reader
without a GPU see the shape of the costs (launches, waits, copies, arithmetic),
from what a run on the CPU actually did:

1. :func:`trace` runs a function on the CPU and records, in order, every aten
   operation that would launch a GPU kernel (one operation, one launch), its
   floating-point operations and the bytes it reads and writes, and every
   synchronisation and host-device copy (the calls :class:`~course.sync.
   SyncCounter` counts);
2. :func:`estimate` replays that trace on a :class:`GPUSpec`.

The model, step by step (the lessons show this formula):

- the host spends ``launch_us`` to queue each operation, and goes on;
- the GPU runs each operation for ``max(flops / peak, bytes / bandwidth)``, when
  it is free and the operation has been queued;
- a synchronisation makes the host wait until the GPU has drained its queue,
  then costs ``sync_us``;
- a copy between host and device waits for the queue too, then takes
  ``copy_latency_us + bytes / pcie_bandwidth``.

The run's time is when both are done. What it leaves out: caches, occupancy,
kernel fusion, overlap of copies with compute, the framework's own Python
overhead beyond ``launch_us`` (PyTorch's eager mode spends more per operation
than a bare launch, see ``course/recorded`` and Day 03), and clocks that vary
with temperature and power.

What counts as a launch: every aten operation the dispatcher sees, except the
ones that only change a tensor's metadata (views, reshapes of contiguous data,
``detach``, ``t``, ``expand``...): :data:`NOT_LAUNCHES`. FLOPs come from
``torch.utils.flop_counter``'s formulas (matrix products, convolutions); any
other operation counts one FLOP per output element.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from course.sync import SyncCounter


@dataclass(frozen=True)
class GPUSpec:
    """Public figures for one GPU, and the assumptions the model adds."""

    name: str
    memory_gbps: float  # device memory bandwidth, GB/s (spec sheet)
    fp32_tflops: float  # peak FP32 without tensor cores, TFLOP/s (spec sheet)
    fp64_tflops: float  # peak FP64, TFLOP/s (spec sheet)
    pcie_gbps: float  # host <-> device from pageable memory, GB/s (assumed)
    launch_us: float = 6.5  # host time to queue one operation (see source)
    sync_us: float = 6.7  # one synchronisation's round trip (see source)
    copy_latency_us: float = 10.0  # fixed cost of one copy (assumed)
    source: str = ""

    def peak_flops(self, dtype: torch.dtype) -> float:
        """FLOP/s for an operation in ``dtype`` (FP64 or, otherwise, FP32 peak)."""
        tflops = self.fp64_tflops if dtype == torch.float64 else self.fp32_tflops
        return tflops * 1e12


HOST_COSTS = (
    "launch_us and sync_us: the recorded NVIDIA H200 run (2026-11-30), one tiny "
    "PyTorch operation synchronised once per 1,000 (6.52 µs each) and after each "
    "(13.23 µs); used for every GPU, since the host and the framework set them"
)

GPUS: dict[str, GPUSpec] = {
    "rtx3050-laptop": GPUSpec(
        "NVIDIA GeForce RTX 3050 Laptop (seed 004's GPU)",
        memory_gbps=192.0,
        fp32_tflops=5.5,
        fp64_tflops=5.5 / 64,
        pcie_gbps=6.0,
        source="spec: 128-bit GDDR6 at 12 Gbps, about 5.5 TFLOP/s FP32 at a "
        "mid boost clock (laptop clocks vary with power), FP64 1/64 of FP32 "
        "(Ampere GeForce); PCIe 4.0 x8 link, pageable copies assumed at 6 GB/s",
    ),
    "t4": GPUSpec(
        "NVIDIA T4 (Colab's GPU)",
        memory_gbps=320.0,
        fp32_tflops=8.1,
        fp64_tflops=0.25,
        pcie_gbps=6.0,
        source="spec: 320 GB/s GDDR6, 8.1 TFLOP/s FP32, 0.25 TFLOP/s FP64; "
        "PCIe 3.0 x16, pageable copies assumed at 6 GB/s",
    ),
    "a100": GPUSpec(
        "NVIDIA A100 40 GB PCIe",
        memory_gbps=1555.0,
        fp32_tflops=19.5,
        fp64_tflops=9.7,
        pcie_gbps=10.0,
        source="spec: 1,555 GB/s HBM2, 19.5 TFLOP/s FP32, 9.7 TFLOP/s FP64 "
        "(19.5 with tensor cores); PCIe 4.0 x16, pageable copies assumed at "
        "10 GB/s",
    ),
    "h200": GPUSpec(
        "NVIDIA H200",
        memory_gbps=4800.0,
        fp32_tflops=67.0,
        fp64_tflops=34.0,
        pcie_gbps=8.1,
        source="spec: 4.8 TB/s HBM3e, 67 TFLOP/s FP32, 34 TFLOP/s FP64 (67 with "
        "tensor cores); pageable copies at the 8.1 GB/s recorded on it",
    ),
    "h100": GPUSpec(
        "NVIDIA H100 SXM",
        memory_gbps=3350.0,
        fp32_tflops=67.0,
        fp64_tflops=34.0,
        pcie_gbps=8.1,
        source="spec: 3.35 TB/s HBM3, 67 TFLOP/s FP32, 34 TFLOP/s FP64 (67 with "
        "tensor cores); pageable copies at the 8.1 GB/s recorded on the H200 box",
    ),
}
"""The GPUs the lessons model: the seed's laptop GPU, Colab's, two data-centre."""

NOT_LAUNCHES = frozenset(
    {
        "view",
        "_unsafe_view",
        "_reshape_alias",
        "reshape",
        "alias",
        "as_strided",
        "detach",
        "t",
        "transpose",
        "permute",
        "expand",
        "unsqueeze",
        "squeeze",
        "select",
        "slice",
        "split",
        "unbind",
        "lift_fresh",
        "empty",  # allocations: no kernel runs (the caching allocator reuses)
        "empty_like",
        "empty_strided",
        "_record_function_enter_new",  # profiler bookkeeping, not a kernel
        "_record_function_exit",
        "_local_scalar_dense",  # recorded as a copy and a synchronisation instead
    }
)
"""aten operations that change metadata only: no kernel runs on a GPU."""


@dataclass(frozen=True)
class Event:
    """One step of a trace: ``op``, ``sync``, ``h2d`` or ``d2h``."""

    kind: str
    name: str = ""
    flops: float = 0.0
    bytes: float = 0.0
    dtype: torch.dtype = torch.float32
    #: For an op, which part of a training step launched it (see :data:`PARTS`).
    part: str = ""


#: The parts of a training step an op can belong to: the model's work
#: ("forward and loss": grad mode on and an input that requires grad;
#: "backward": run by autograd's backward) and the rest ("bookkeeping": the
#: optimizer's update, zeroing, copies, logging).
PARTS = ("forward and loss", "backward", "bookkeeping")


@dataclass
class Trace:
    """What a run did, in order (see :func:`trace`)."""

    events: list[Event] = field(default_factory=list)

    @property
    def launches(self) -> int:
        """Operations that would each launch a GPU kernel."""
        return sum(1 for e in self.events if e.kind == "op")

    @property
    def syncs(self) -> int:
        """Synchronisations (each copy back to the host is one too)."""
        return sum(1 for e in self.events if e.kind in ("sync", "d2h"))

    @property
    def flops(self) -> float:
        return sum(e.flops for e in self.events)

    def op(self, name: str, flops: float, nbytes: float, dtype=torch.float32) -> None:
        """Add one launched operation by hand (for code that is not torch)."""
        self.events.append(Event("op", name, float(flops), float(nbytes), dtype))

    def copy(self, direction: str, nbytes: float) -> None:
        """Add a copy by hand: ``"h2d"`` or ``"d2h"``."""
        if direction not in ("h2d", "d2h"):
            raise ValueError(f"direction must be 'h2d' or 'd2h', not {direction!r}")
        self.events.append(Event(direction, "copy", bytes=float(nbytes)))

    def sync(self) -> None:
        """Add a synchronisation by hand."""
        self.events.append(Event("sync", "synchronize"))

    def by_op(self, part: str | None = None) -> dict[str, int]:
        """Launches per aten operation name (of one of :data:`PARTS` only)."""
        counts: dict[str, int] = {}
        for e in self.events:
            if e.kind == "op" and part in (None, e.part):
                counts[e.name] = counts.get(e.name, 0) + 1
        return counts

    def by_part(self) -> dict[str, int]:
        """Launches per part of a training step (:data:`PARTS`)."""
        return {part: sum(self.by_op(part).values()) for part in PARTS}


def _tensors(value: Any) -> list[torch.Tensor]:
    """The tensors in ``value``, in nested lists and tuples too."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _nbytes(value: Any) -> int:
    return sum(t.numel() * t.element_size() for t in _tensors(value))


def _numel(value: Any) -> int:
    return sum(t.numel() for t in _tensors(value))


def _dtype(args: Iterable[Any]) -> torch.dtype:
    for value in args:
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            return value.dtype
        if isinstance(value, (list, tuple)):
            found = _dtype(value)
            if found is not torch.float32:
                return found
    return torch.float32


class _Recorder(TorchDispatchMode):
    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        if name not in NOT_LAUNCHES:
            from torch.utils.flop_counter import flop_registry

            formula = flop_registry.get(func.overloadpacket)
            flops = (
                float(formula(*args, **kwargs, out_val=out))
                if formula is not None
                else float(_numel(out))
            )
            moved = _nbytes(list(args)) + _nbytes(list(kwargs.values())) + _nbytes(out)
            self.events.append(
                Event("op", name, flops, float(moved), _dtype([*args, out]),
                      _part([*args, *kwargs.values()]))
            )  # fmt: skip
        return out


def _part(inputs: list[Any]) -> str:
    """Which of :data:`PARTS` an op now running belongs to."""
    if torch._C._current_autograd_node() is not None:
        return "backward"
    if torch.is_grad_enabled() and any(t.requires_grad for t in _tensors(inputs)):
        return "forward and loss"
    return "bookkeeping"


class _Syncs(SyncCounter):
    """SyncCounter that also puts each counted call into the trace, in order."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__(simulate=True)  # the trace plays a GPU on any machine
        self._trace = events

    def _record(self, op: str, value: Any) -> None:
        super()._record(op, value)
        size = _nbytes(value) if value is not None else 0
        self._trace.append(Event("d2h", op, bytes=float(max(size, 1))))


def trace(fn: Callable[[], Any]) -> Trace:
    """Run ``fn()`` on the CPU and record what a GPU would have had to do.

    Data already on the device before ``fn`` runs is not copied in the trace;
    copies to the device inside ``fn`` are not seen on a CPU (add them with
    :meth:`Trace.copy`).
    """
    events: list[Event] = []
    with _Syncs(events), _Recorder(events):
        fn()
    return Trace(events)


@dataclass(frozen=True)
class Estimate:
    """A modelled run on one GPU (seconds), with where the time went."""

    gpu: str
    seconds: float
    host_seconds: float  # launching, waiting and copying, on the host's clock
    device_busy_seconds: float  # the GPU computing
    launches: int
    syncs: int

    @property
    def label(self) -> str:
        return f"modelled for {self.gpu} from spec sheets, not measured"


def estimate(run: Trace, spec: GPUSpec, repeat: int = 1) -> Estimate:
    """Replay a trace ``repeat`` times on ``spec`` (see the module docstring)."""
    host = device = busy = 0.0
    launch, sync = spec.launch_us * 1e-6, spec.sync_us * 1e-6
    for _ in range(repeat):
        for e in run.events:
            if e.kind == "op":
                host += launch
                work = max(
                    e.flops / spec.peak_flops(e.dtype),
                    e.bytes / (spec.memory_gbps * 1e9),
                )
                device = max(device, host) + work
                busy += work
            elif e.kind == "sync":
                host = max(host, device) + sync
            else:  # a copy: waits for the queue, then crosses the bus
                host = (
                    max(host, device)
                    + sync
                    + (spec.copy_latency_us * 1e-6 + e.bytes / (spec.pcie_gbps * 1e9))
                )
                device = host
    total = max(host, device)
    return Estimate(
        spec.name,
        total,
        host,
        busy,
        run.launches * repeat,
        run.syncs * repeat,
    )


def mlp_epoch(n: int, features: int, hidden: int, copies: bool) -> Trace:
    """One epoch of Day 05's ``train_mlp`` (float64) as a GPU runs it: one entry
    per CuPy kernel, and with ``copies`` the naive port's four copies."""
    run = Trace()
    f64 = torch.float64
    X, y, H = n * features * 8, n * 8, n * hidden * 8  # bytes
    A, B = features * hidden * 8, hidden * 8
    if copies:
        run.copy("h2d", X)
        run.copy("h2d", y)
    run.op("X_dev @ a", 2 * n * features * hidden, X + A + H, f64)
    run.op("tanh", n * hidden, 2 * H, f64)
    run.op("h @ b", 2 * n * hidden, H + B + y, f64)
    run.op("- y_dev", n, 3 * y, f64)
    if copies:
        run.copy("d2h", y)  # the error vector home, to log the MSE
        run.copy("h2d", y)  # and back
    for name, flops, nbytes in (
        ("h.T @ error", 2 * n * hidden, H + y + B),
        ("/ len(X)", hidden, 2 * B),
        ("error @ b.T", n * hidden, y + B + H),
        ("h**2", n * hidden, 2 * H),
        ("1 - h**2", n * hidden, 2 * H),
        ("* (1 - h**2)", n * hidden, 3 * H),
        ("X_dev.T @ grad_h", 2 * n * features * hidden, X + H + A),
        ("/ len(X)", features * hidden, 2 * A),
        ("lr * grad_a", features * hidden, 2 * A),
        ("a - ...", features * hidden, 3 * A),
        ("lr * grad_b", hidden, 2 * B),
        ("b - ...", hidden, 3 * B),
    ):
        run.op(name, flops, nbytes, f64)
    return run


def estimate_all(run: Trace, repeat: int = 1) -> dict[str, Estimate]:
    """:func:`estimate` on every GPU in :data:`GPUS`."""
    return {key: estimate(run, spec, repeat) for key, spec in GPUS.items()}
