"""What a trace would cost on a GPU: the calibrated model, and its constants.

Every figure here is **modelled, not measured**; every constant is fitted on
the recorded NVIDIA H200 run (2026-11-30) by ``course model-check``, which
also prints the model's error against every recorded row.

The model, per run of a trace (the lessons show it):

- **host**: what the same step costs on *your* CPU (``cpu_s``: timed quietly
  at a tiny size with :func:`host_cost`; without it, ``cpu_op_us`` per PyTorch
  operation, the recorded box's), plus CUDA's own cost per operation:
  ``book_us`` for one outside autograd, ``grad_us`` for one autograd records
  or replays, ``cupy_us`` per CuPy kernel and ``numba_us`` per kernel of your
  own (both all host, Python included); a synchronisation waits for the GPU,
  then costs ``sync_us``; a copy waits too, then takes ``latency + bytes /
  bandwidth``, per direction;
- **device**: each operation runs for ``max(floor, flops / (eff x peak), bytes
  / (eff x bandwidth))`` once it is queued and the GPU is free; matrix
  products at the efficiency each library reached, FP64 ones on FP64 tensor
  cores where the chip has them, bfloat16 and float16 ones
  (:func:`autocast_trace`) on 16-bit tensor cores at the float32 efficiency
  (not checked against a recorded run);
- the run takes until both are done.

The host is assumed to be the one the constants were fitted with, made faster
or slower only through ``cpu_s``: a faster CPU shortens the host term, on every
GPU alike. Left out: caches, occupancy, overlap of copies with compute, clocks
that vary with temperature and power.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import torch

from course.gpumodel.specs import GPUS, GPUSpec
from course.gpumodel.tracing import Trace
from course.recorded import RECORDED_DIR

MATRIX_OPS = frozenset({"mm", "addmm", "bmm", "baddbmm", "matmul", "addmv", "mv"})

CONSTANTS_FILE = RECORDED_DIR / "gpumodel--nvidia-h200--2026-12-04.json"
"""The one table of constants: written by ``course model-check DIR --write``
from a recorded run, nothing else."""


def _load() -> tuple[dict[str, tuple[float, str, str]], str, dict[str, Any]]:
    data = json.loads(CONSTANTS_FILE.read_text(encoding="utf-8"))
    table = {
        name: (float(row["value"]), row["unit"], row["source"])
        for name, row in data["results"]["constants"].items()
    }
    where = f"the recorded {data['hardware']} run of {data['date']}"
    return table, where, data["results"].get("check", {})


#: name: (value, unit, the recorded rows it is fitted on); CHECK: the model's
#: error against that run (``course model-check``): the median, with each
#: experiment left out, and the rows of the loops the lessons show.
CONSTANTS, CALIBRATION, CHECK = _load()


def error_of(experiment: str, variant: str) -> float | None:
    """The model's recorded error on one row of :data:`CHECK` (None: none)."""
    for row in CHECK.get("rows", []):
        if row["experiment"] == experiment and row["variant"] == variant:
            return row["error"]
    return None


def accuracy() -> str:
    """One line: how far the model is from the run it was calibrated on."""
    if not CHECK:
        return "the model has not been checked against a recorded run"
    return (
        f"against {CALIBRATION}, the model's median error is "
        f"{CHECK['median_abs_error']:.0%} over {CHECK['rows_checked']} rows, and "
        f"{CHECK['median_abs_left_out_error']:.0%} over the "
        f"{CHECK['rows_left_out']} training-loop rows when each is predicted from "
        "constants fitted without its experiment"
    )


#: The recorded experiments that check each kind of work the lessons model.
KINDS = {
    "pytorch loop": ("mlp_torch", "seed_iris", "sync_trap"),
    "cupy loop": ("seed_copies",),
    "data-centre matmul": ("precision",),
}
#: Kinds the lessons model that no recorded run checks yet.
UNCHECKED = (
    "numba kernel",
    "CUDA graph replay",
    "GeForce and T4 FP64",
    "16-bit tensor-core matmul",
)


def accuracy_for(kind: str) -> str:
    """One line: the model's recorded error on ``kind`` of work (a key of
    :data:`KINDS`: each row predicted by constants fitted without its own
    experiment where the fit could leave it out, else said to be in sample),
    or, for a kind in :data:`UNCHECKED`, that no recorded run checks it.

    Raises:
        ValueError: ``kind`` is neither.
    """
    if kind in UNCHECKED:
        return f"{kind}: modelled, not checked against a recorded run"
    if kind not in KINDS:
        known = ", ".join([*KINDS, *UNCHECKED])
        raise ValueError(f"no kind of work named {kind!r}; the kinds: {known}")
    rows = [r for r in CHECK.get("rows", []) if r["experiment"] in KINDS[kind]]
    if not rows:
        return f"{kind}: modelled, not checked against a recorded run"
    held_out = [abs(r["left_out_error"]) for r in rows if r.get("left_out_error")]
    found = sorted(held_out or [abs(r["error"]) for r in rows])
    how = (
        f"{len(found)} recorded rows, each predicted without its own experiment"
        if held_out
        else f"{len(found)} recorded rows it was fitted on (in sample)"
    )
    return (
        f"{kind}: the model's error on {how} ({CALIBRATION}): median "
        f"{found[len(found) // 2]:.0%}, at most {found[-1]:.0%}"
    )


def constant_values() -> dict[str, float]:
    """``{name: value}`` of :data:`CONSTANTS`."""
    return {name: value for name, (value, _, _) in CONSTANTS.items()}


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
        return f"modelled for {self.gpu}, calibrated on {CALIBRATION}; not measured"


def _is_matrix(name: str) -> bool:
    """A matrix product: an aten one, or one added by hand whose name says so
    (``"X @ w"``, ``"4096 x 4096 matmul"``)."""
    return name in MATRIX_OPS or "@" in name or "matmul" in name


def op_seconds(event: Any, spec: GPUSpec, c: Mapping[str, float]) -> float:
    """One operation's device time on ``spec`` (see the module docstring)."""
    library = "cupy" if event.library == "numba" else event.library
    dtype = "float64" if event.dtype == torch.float64 else "float32"
    matrix = _is_matrix(event.name)
    # matrix products at the efficiency the library reached; other arithmetic
    # at the chip's peak (memory traffic bounds those long before)
    eff = c.get(f"gemm_eff_{library}_{dtype}", 1.0) if matrix else 1.0
    flops = event.flops / (eff * spec.peak_flops(event.dtype, matrix))
    moved = event.bytes / (c.get(f"bw_eff_{library}", 1.0) * spec.memory_gbps * 1e9)
    return max(c.get("floor_us", 0.0) * 1e-6, flops, moved)


def _copy_seconds(event: Any, spec: GPUSpec, c: Mapping[str, float]) -> float:
    way = event.kind
    gbps = spec.pcie_gbps or c.get(f"{way}_gbps", 8.0)
    latency = c.get(f"{way}_latency_us", 10.0)
    if event.library != "torch":
        latency = c.get("cupy_copy_us", latency)
    return latency * 1e-6 + event.bytes / (gbps * 1e9)


def estimate(
    run: Trace,
    spec: GPUSpec,
    repeat: int = 1,
    *,
    cpu_s: float | None = None,
    constants: Mapping[str, float] | None = None,
) -> Estimate:
    """Replay a trace ``repeat`` times on ``spec``. ``cpu_s``: what one run of
    the trace's PyTorch code costs on your CPU (:func:`host_cost`); None:
    ``cpu_op_us`` per PyTorch operation."""
    c = constant_values() if constants is None else constants
    torch_ops = sum(1 for e in run.events if e.kind == "op" and e.library == "torch")
    per_op = (
        c.get("cpu_op_us", 0.0) * 1e-6 if cpu_s is None else cpu_s / max(torch_ops, 1)
    )
    costs = {
        "torch": 0.0,
        "cupy": c.get("cupy_us", 0.0),
        "numba": c.get("numba_us", 0.0),
    }
    host = device = busy = 0.0
    for _ in range(repeat):
        for e in run.events:
            if e.kind == "op":
                if e.library == "torch":
                    cuda = c.get(
                        "book_us" if e.part == "bookkeeping" else "grad_us", 0.0
                    )
                    host += per_op + cuda * 1e-6
                else:
                    host += costs[e.library] * 1e-6
                work = op_seconds(e, spec, c)
                device = max(device, host) + work
                busy += work
            elif e.kind == "sync":
                host = max(host, device) + c.get("sync_us", 0.0) * 1e-6
            else:  # a copy: waits for the queue, then crosses the bus
                host = max(host, device) + _copy_seconds(e, spec, c)
                device = host
    return Estimate(
        spec.name,
        max(host, device),
        host,
        busy,
        run.launches * repeat,
        run.syncs * repeat,
    )


def replayed(
    run: Trace,
    spec: GPUSpec,
    *,
    cpu_s: float | None = None,
    constants: Mapping[str, float] | None = None,
) -> Estimate:
    """``run`` recorded once as a CUDA graph and replayed: the host queues one
    launch, the GPU runs every kernel of the run back to back (each one's
    device time, as :func:`estimate` charges it). A graph holds no
    synchronisation or copy: the run's are left out."""
    c = constant_values() if constants is None else constants
    kernels = [e for e in run.events if e.kind == "op"]
    torch_ops = sum(1 for e in kernels if e.library == "torch")
    per_op = (
        c.get("cpu_op_us", 0.0) * 1e-6 if cpu_s is None else cpu_s / max(torch_ops, 1)
    )
    host = per_op + c.get("book_us", 0.0) * 1e-6
    busy = sum(op_seconds(e, spec, c) for e in kernels)
    return Estimate(spec.name, host + busy, host, busy, 1, 0)


def autocast_trace(run: Trace, dtype: torch.dtype) -> Trace:
    """``run`` with its matrix products in ``dtype`` (bfloat16 or float16), as
    ``torch.autocast`` runs them; the rest as it was. On a chip with tensor
    cores for ``dtype`` they run at that peak, at the float32 efficiency: no
    recorded run checks it yet (``"16-bit tensor-core matmul"`` in
    :data:`UNCHECKED`)."""
    return Trace(
        [
            replace(e, dtype=dtype) if e.kind == "op" and _is_matrix(e.name) else e
            for e in run.events
        ]
    )


def estimate_all(
    run: Trace, repeat: int = 1, *, cpu_s: float | None = None
) -> dict[str, Estimate]:
    """:func:`estimate` on every GPU in :data:`~course.gpumodel.specs.GPUS`."""
    return {key: estimate(run, spec, repeat, cpu_s=cpu_s) for key, spec in GPUS.items()}


def host_cost(fn: Callable[[], Any], bursts: int = 15) -> float:
    """What ``fn()`` costs this CPU when nothing else runs: the fastest of
    ``bursts`` calls, on one thread (seconds). Call it on a tiny size, so that
    arithmetic does not count; pass the result as :func:`estimate`'s
    ``cpu_s``. A measurement, so it varies from run to run (graded code never
    calls it)."""
    from course.timing import one_torch_thread

    best = float("inf")
    with one_torch_thread():
        for _ in range(bursts):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
    return best


#: Tiny in-place adds per round of :func:`steady_host_cost`: the yardstick.
YARDSTICK_ADDS = 1000


def recorded_add_us() -> float:
    """One tiny ``add_`` on the recorded box's CPU, in µs (the launch bench's
    CPU row, one synchronisation at the end): the yardstick's recorded cost."""
    from course.recorded import load_recorded, recorded_rows

    for run in load_recorded("bench"):
        for row in recorded_rows(run, "launch", device="cpu", mode="sync_once"):
            return float(row["us_per_op"])
    raise LookupError("no recorded launch bench with a CPU row: run make gpu-check")


def steady_host_cost(fn: Callable[[], Any], rounds: int = 15) -> float:
    """What ``fn()`` would cost the recorded box's CPU (seconds), measured so
    that this machine's load does not move it: each round times ``fn()`` and
    as many tiny in-place adds as take about as long, back to back (in turn
    first and second), on one thread; a busy machine slows both alike, so
    their ratio holds. The median ratio, times the recorded cost of one add
    (:func:`recorded_add_us`). Call it on a tiny size, so that arithmetic
    does not count; pass the result as :func:`estimate`'s ``cpu_s``."""
    from course.timing import one_torch_thread

    x = torch.zeros(1)  # the launch bench's tensor and add

    def adds(count: int) -> float:
        start = time.perf_counter()
        for _ in range(count):
            x.add_(1)
        return time.perf_counter() - start

    def timed() -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    ratios = []
    with one_torch_thread():
        fn()  # warm-up: the first call allocates
        count = max(
            YARDSTICK_ADDS, int(timed() / (adds(YARDSTICK_ADDS) / YARDSTICK_ADDS))
        )
        for i in range(rounds):
            if i % 2:
                yard, spent = adds(count), timed()
            else:
                spent, yard = timed(), adds(count)
            ratios.append(spent / (yard / count))
    ratios.sort()
    return ratios[len(ratios) // 2] * recorded_add_us() * 1e-6
