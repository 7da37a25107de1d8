"""A GPU cost model: what a run's operations would cost on named GPUs.

Every figure this package gives is **modelled, not measured**, from a model
calibrated on a recorded GPU run whose error against every recorded row
``course model-check`` prints. It lets a reader without a GPU see the shape of
the costs (launches, waits, copies, arithmetic) from what a run on the CPU
actually did:

1. :func:`trace` (:mod:`course.gpumodel.tracing`) runs a function on the CPU
   and records every operation a GPU would launch, every synchronisation and
   every copy;
2. :func:`estimate` (:mod:`course.gpumodel.cost`) replays the trace on a
   :class:`GPUSpec` (:mod:`course.gpumodel.specs`), with the host cost of the
   same code when you give it: :func:`steady_host_cost` measures it here as a
   multiple of one tiny operation (so the machine's load does not move it) and
   prices it at the recorded box's cost for that operation.

The specs also give each chip's peak per precision (:meth:`GPUSpec.peak`,
dense tensor cores included), so a *measured* FLOP rate on a real GPU can be
put against it: :func:`utilisation` is model FLOP utilisation (MFU), a measured
figure over a spec-sheet one.
"""

from course.gpumodel.cost import (
    CALIBRATION,
    CHECK,
    CONSTANTS,
    UNCHECKED,
    Estimate,
    accuracy,
    accuracy_for,
    autocast_trace,
    constant_values,
    error_of,
    estimate,
    estimate_all,
    host_cost,
    op_seconds,
    recorded_add_us,
    replayed,
    steady_host_cost,
)
from course.gpumodel.specs import GPUS, PRECISIONS, GPUSpec, spec_key, utilisation
from course.gpumodel.tracing import (
    LIBRARIES,
    NOT_LAUNCHES,
    PARTS,
    Event,
    Trace,
    mlp_epoch,
    profiled_calls,
    trace,
)

__all__ = [
    "CALIBRATION",
    "CHECK",
    "CONSTANTS",
    "GPUS",
    "LIBRARIES",
    "NOT_LAUNCHES",
    "PARTS",
    "Estimate",
    "Event",
    "GPUSpec",
    "PRECISIONS",
    "Trace",
    "accuracy",
    "accuracy_for",
    "autocast_trace",
    "UNCHECKED",
    "constant_values",
    "error_of",
    "estimate",
    "estimate_all",
    "host_cost",
    "recorded_add_us",
    "steady_host_cost",
    "mlp_epoch",
    "op_seconds",
    "profiled_calls",
    "replayed",
    "spec_key",
    "trace",
    "utilisation",
]
