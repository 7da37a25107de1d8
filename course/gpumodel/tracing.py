"""What a run asks of a GPU: :func:`trace` records it on the CPU.

:func:`trace` runs a function on the CPU and records, in order, every aten
operation that would launch a GPU kernel (one operation, one launch), its
floating-point operations and the bytes it reads and writes, which part of a
training step launched it (:data:`PARTS`), and every synchronisation and
host-device copy (the calls :class:`~course.sync.SyncCounter` counts). It is
deterministic and cheap: hidden tests call it. :mod:`course.gpumodel.cost`
turns a trace into modelled time.

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
    #: What launches it: "torch" (traced), or, for ops added by hand,
    #: "cupy" or "numba" (their host costs differ: :mod:`course.gpumodel.cost`).
    library: str = "torch"


#: The parts of a training step an op can belong to: the model's work
#: ("forward and loss": grad mode on and an input that requires grad;
#: "backward": run by autograd's backward) and the rest ("bookkeeping": the
#: optimizer's update, zeroing, copies, logging).
PARTS = ("forward and loss", "backward", "bookkeeping")
LIBRARIES = ("torch", "cupy", "numba")


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

    def op(
        self,
        name: str,
        flops: float,
        nbytes: float,
        dtype=torch.float32,
        library: str = "cupy",
    ) -> None:
        """Add one launched operation by hand (for code that is not torch):
        a CuPy kernel by default, or ``library="numba"`` for a kernel of your
        own."""
        if library not in LIBRARIES:
            raise ValueError(f"library must be one of {LIBRARIES}, not {library!r}")
        part = "bookkeeping" if library == "torch" else ""  # outside autograd
        self.events.append(
            Event("op", name, float(flops), float(nbytes), dtype, part, library)
        )

    def copy(self, direction: str, nbytes: float, library: str = "cupy") -> None:
        """Add a copy by hand: ``"h2d"`` or ``"d2h"`` (by CuPy by default)."""
        if direction not in ("h2d", "d2h"):
            raise ValueError(f"direction must be 'h2d' or 'd2h', not {direction!r}")
        self.events.append(
            Event(direction, "copy", bytes=float(nbytes), library=library)
        )

    def sync(self) -> None:
        """Add a synchronisation by hand."""
        self.events.append(Event("sync", "synchronize"))

    def as_library(self, library: str) -> Trace:
        """The same trace with every operation launched by ``library``
        (``"cupy"`` for array code traced with PyTorch on the CPU: CuPy
        launches one kernel per operation in the same way)."""
        if library not in LIBRARIES:
            raise ValueError(f"library must be one of {LIBRARIES}, not {library!r}")
        from dataclasses import replace

        return Trace(
            [replace(e, library=library) if e.kind == "op" else e for e in self.events]
        )

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
            if name in ("mv", "addmv"):  # torch's counter has no formula for them
                matrix = args[1] if name == "addmv" else args[0]
                flops = 2.0 * matrix.numel()
            elif formula is not None:
                flops = float(formula(*args, **kwargs, out_val=out))
            else:
                flops = float(_numel(out))
            moved = _nbytes(list(args)) + _nbytes(list(kwargs.values())) + _nbytes(out)
            self.events.append(
                Event(
                    "op",
                    name,
                    flops,
                    float(moved),
                    _dtype([*args, out]),
                    _part([*args, *kwargs.values()]),
                )
            )
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


def profiled_calls(fn: Callable[[], Any]) -> dict[str, int]:
    """The aten operations ``fn()`` calls directly (not from inside another
    aten operation), as PyTorch's profiler sees them, views and metadata
    excluded: what compiled code still calls besides the kernels it generated.

    Unlike :func:`trace`, this leaves a compiled function compiled (a dispatch
    mode would make it run eagerly)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    counts: dict[str, int] = {}
    for event in prof.events():
        parent = event.cpu_parent
        if not event.name.startswith("aten::") or (
            parent is not None and parent.name.startswith("aten::")
        ):
            continue
        name = event.name.removeprefix("aten::")
        if name not in NOT_LAUNCHES and name != "resolve_conj":
            counts[name] = counts.get(name, 0) + 1
    return counts


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
