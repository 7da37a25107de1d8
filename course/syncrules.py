"""What synchronises: the one table :class:`course.sync.SyncCounter` reads.

**The rule.** A synchronisation is what PyTorch's sync debug mode
(``torch.cuda.set_sync_debug_mode("warn")``) reports on a GPU: a call that
makes the host wait for the device. :data:`RULES` lists each kind of call,
why it waits and where that is written (a PyTorch, CUDA or CuPy source, or a
recorded GPU run), and the ``make gpu-check`` pattern that records it
(:func:`patterns` holds one call per row, which it runs).
The counter's function mode (:mod:`course.syncwatch`) and the simulated GPU's
store (:mod:`course.simstore`) read the same table, so a counter that moves
to another process keeps its rules.

Kinds:

``read``     a value handed to Python (``.item()``, ``print(t)``): the host
             waits, then copies the value home.
``home``     a copy home (``.cpu()``, ``.to("cpu")``, ``copy_`` into a host
             tensor) without ``non_blocking=True``.
``size``     an operation whose output size depends on the data
             (``nonzero``, a boolean mask): the host must learn the size
             before it can allocate the result.
``upload``   a copy to the device without ``non_blocking=True``: torch's
             ``copy_`` calls ``memcpy_and_sync`` (``cudaMemcpyAsync`` then
             ``cudaStreamSynchronize``), from pinned memory too.
``wait``     an explicit wait (``torch.cuda.synchronize()``).

Calls that stay on the device count nothing: ``torch.where`` with three
arguments, ``masked_fill``, reductions whose result stays a tensor, a copy
with ``non_blocking=True`` (a copy home queued so is read only after the next
wait: :meth:`course.sync.SyncCounter.unfinished`).

**Setup.** The parameters of a model built inside a counter's block and moved
there (``make_model()`` in a test) are the test's own work, not the answer's:
their moves are kept in :attr:`course.sync.SyncCounter.setup`, outside the
count and the timeline. A module's buffers (a loss's class weights) count. On
the simulated GPU the parameters of any module are taken to be on the device
already (the simulation cannot know where a module made before the block
lives), so a module's ``.to(device)`` moves no parameter there; on a GPU a
module made on the host before the block and moved inside it counts, as torch
reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course.syncstate import simulating

_COPY_CU = (
    "PyTorch aten/src/ATen/native/cuda/Copy.cu (copy_kernel_cuda: memcpy_and_sync)"
)
_NONZERO = "PyTorch aten/src/ATen/native/cuda/Nonzero.cu (the count is copied home)"
_INDEX = (
    "PyTorch aten/src/ATen/native/TensorAdvancedIndexing.cpp "
    "(a bool index is expanded with nonzero)"
)
_REC = "recorded: docs/gpu-runs/2026-12-04-nvidia-h200/extras.json, sync_check"


@dataclass(frozen=True)
class SyncRule:
    """One kind of call that synchronises (or, ``kind == "none"``, that does not)."""

    op: str  # the name the counter reports
    kind: str  # read, home, size, upload, wait or none
    source: str  # where the rule is written or measured
    pattern: str  # the gpu-check pattern that records it


RULES: tuple[SyncRule, ...] = (
    SyncRule("Tensor.item", "read", f"{_REC} (item: 2 warnings)", "item"),
    SyncRule("Tensor.__float__", "read", f"{_REC} (float)", "float"),
    SyncRule("Tensor.__int__", "read", "PyTorch: calls item()", "int"),
    SyncRule("Tensor.__bool__", "read", f"{_REC} (if_tensor)", "if_tensor"),
    SyncRule("Tensor.tolist", "read", f"{_REC} (tolist)", "tolist"),
    SyncRule(
        "Tensor.__repr__",
        "read",
        f"{_REC} (print_repr: one per element read)",
        "print_repr",
    ),
    SyncRule("Tensor.__format__", "read", "PyTorch: formats via item()/repr", "format"),
    SyncRule(
        "Tensor.__contains__",
        "read",
        "PyTorch torch/_tensor.py: (elem == self).any().item()",
        "contains",
    ),
    SyncRule(
        "Tensor.numpy",
        "read",
        "PyTorch: a CUDA tensor refuses .numpy(); after .cpu()",
        "cpu",
    ),
    SyncRule("torch.equal", "read", "PyTorch: answers a Python bool (item())", "equal"),
    SyncRule(
        "torch.allclose", "read", "PyTorch: answers a Python bool (item())", "allclose"
    ),
    SyncRule(
        "torch.is_nonzero",
        "read",
        "PyTorch: answers a Python bool (item())",
        "is_nonzero",
    ),
    SyncRule("Tensor.cpu", "home", f"{_COPY_CU}; {_REC} (cpu)", "cpu"),
    SyncRule("Tensor.to(cpu)", "home", _COPY_CU, "to_cpu"),
    SyncRule("Tensor.copy_ (device to host)", "home", _COPY_CU, "copy_home"),
    SyncRule(
        "Tensor.to(device)",
        "upload",
        f"{_COPY_CU}; {_REC} (pageable_h2d)",
        "pageable_h2d",
    ),
    SyncRule("Tensor.to(device) from pinned memory", "upload", _COPY_CU, "pinned_h2d"),
    SyncRule("Tensor.copy_ (host to device)", "upload", _COPY_CU, "copy_upload"),
    SyncRule("Tensor.cuda", "upload", _COPY_CU, "cuda_method"),
    SyncRule(
        "torch.tensor(device=...)",
        "upload",
        "PyTorch torch/csrc/utils/tensor_new.cpp (built on the host, then .to(device))",
        "tensor_on_device",
    ),
    SyncRule(
        "torch.as_tensor(device=...)",
        "upload",
        "PyTorch torch/csrc/utils/tensor_new.cpp (as torch.tensor)",
        "as_tensor_on_device",
    ),
    SyncRule(
        "Tensor[bool mask]",
        "size",
        f"{_INDEX}; {_REC} (bool_mask_index)",
        "bool_mask_index",
    ),
    SyncRule(
        "Tensor[bool mask] = value", "size", f"{_INDEX} (index_put_)", "bool_mask_write"
    ),
    SyncRule("torch.nonzero", "size", f"{_NONZERO}; {_REC} (nonzero)", "nonzero"),
    SyncRule("torch.argwhere", "size", f"{_NONZERO} (argwhere is nonzero)", "argwhere"),
    SyncRule(
        "torch.where(condition)",
        "size",
        f"{_NONZERO} (one-argument where is nonzero)",
        "where_one_arg",
    ),
    SyncRule(
        "torch.masked_select",
        "size",
        "PyTorch aten/src/ATen/native/TensorAdvancedIndexing.cpp (masked_select_out)",
        "masked_select",
    ),
    SyncRule(
        "torch.unique", "size", "PyTorch aten/src/ATen/native/cuda/Unique.cu", "unique"
    ),
    SyncRule(
        "torch.unique_consecutive",
        "size",
        "PyTorch aten/src/ATen/native/cuda/Unique.cu",
        "unique_consecutive",
    ),
    SyncRule(
        "torch.repeat_interleave (no output_size)",
        "size",
        "PyTorch aten/src/ATen/native/Repeat.cpp (sums repeats on the host)",
        "repeat_interleave",
    ),
    SyncRule(
        "torch.bincount",
        "size",
        "PyTorch aten/src/ATen/native/cuda/SummaryOps.cu (reads the max)",
        "bincount",
    ),
    SyncRule(
        "torch.cuda.synchronize", "wait", "CUDA cudaDeviceSynchronize", "synchronize"
    ),
    SyncRule(
        "Tensor.to(cpu, non_blocking=True)",
        "none",
        f"{_COPY_CU} (queued); {_REC} (to_cpu_nonblocking)",
        "to_cpu_nonblocking",
    ),
    SyncRule(
        "Tensor.to(device, non_blocking=True)", "none", _COPY_CU, "nonblocking_h2d"
    ),
    SyncRule(
        "device-only math", "none", f"{_REC} (device_only_math)", "device_only_math"
    ),
    SyncRule(
        "torch.where(condition, x, y)",
        "none",
        "PyTorch: an elementwise kernel",
        "where_three_args",
    ),
    SyncRule(
        "Tensor.masked_fill", "none", "PyTorch: an elementwise kernel", "masked_fill"
    ),
    SyncRule(
        "Tensor[bool mask] = number",
        "none",
        "PyTorch aten/src/ATen/native/TensorAdvancedIndexing.cpp "
        "(canDispatchToMaskedFill: it becomes masked_fill_)",
        "bool_mask_fill",
    ),
)

#: ``func.__name__`` of the Tensor methods that hand a value to Python
#: (``__array__`` is ``numpy.asarray(t)``; ``__index__`` ``range(t)``).
READS = frozenset(
    "item numpy tolist __array__ __float__ __int__ __complex__ __bool__ "
    "__index__ __contains__ __repr__ __format__ equal allclose is_nonzero".split()
)
#: Functions whose output size depends on the data, always.
SIZE_ALWAYS = frozenset(
    "nonzero argwhere masked_select unique unique_consecutive _unique _unique2 "
    "bincount".split()
)
#: Factories that copy host data when given a device.
COPYING_FACTORIES = frozenset({"tensor", "as_tensor", "asarray"})
#: The simulated GPU's (fake CuPy's) functions whose result's shape depends on
#: the data: CuPy learns the size on the host (``cupy/_indexing/indexing.py``,
#: ``cupy/_manipulation/add_remove.py``); a boolean-mask read too.
STORE_SIZE = frozenset(
    "nonzero flatnonzero argwhere unique compress extract trim_zeros "
    "unique_values unique_counts unique_inverse unique_all".split()
)


def _is_bool_tensor(value: Any) -> bool:
    import torch

    return isinstance(value, torch.Tensor) and value.dtype == torch.bool


def _bool_index(index: Any) -> bool:
    if isinstance(index, (tuple, list)):
        return any(_is_bool_tensor(i) for i in index)
    return _is_bool_tensor(index)


def _fills(name: str, args: tuple, kwargs: dict) -> bool:
    """Whether a masked write of one host number becomes ``masked_fill_``:
    ``_index_put_impl_``'s ``canDispatchToMaskedFill`` (one bool index, a
    one-element value on the host, no accumulation), which does not wait."""
    import torch

    if name != "__setitem__" or isinstance(args[1], (tuple, list)):
        return False
    value = args[2] if len(args) > 2 else kwargs.get("value")
    if isinstance(value, (int, float, bool)):
        return True
    if not isinstance(value, torch.Tensor) or value.numel() != 1:
        return False
    if getattr(value, "_course_on_host", False):
        return True  # made on the host in a simulated block
    return value.device.type == "cpu" and not simulating()


def size_sync(name: str, args: tuple, kwargs: dict) -> str | None:
    """The op of a call whose output size depends on the data, or None."""
    if name in SIZE_ALWAYS:
        return f"torch.{name.strip('_').removesuffix('2')}"
    if name == "where" and len(args) + len(kwargs) == 1:
        return "torch.where(condition)"
    if name == "repeat_interleave" and kwargs.get("output_size") is None:
        import torch

        repeats = (
            args[1]
            if len(args) > 1
            else kwargs.get("repeats", args[0] if args else None)
        )
        if isinstance(repeats, torch.Tensor):
            return "torch.repeat_interleave (no output_size)"
    if name == "__getitem__" and len(args) > 1 and _bool_index(args[1]):
        return "Tensor[bool mask]"
    if name in ("__setitem__", "index_put_", "index_put") and len(args) > 1:
        if _bool_index(args[1]) and not _fills(name, args, kwargs):
            return "Tensor[bool mask] = value"
    return None


def patterns(torch: Any, device: Any) -> dict[str, Callable[[], Any]]:
    """One call per rule of :data:`course.syncrules.RULES`, by its pattern
    name. On a CPU (the simulated GPU replays them) the patterns that need
    CUDA (pinned memory, ``.cuda()``, ``torch.cuda.synchronize``) are left out."""
    t = torch.arange(1000, device=device, dtype=torch.float32)
    ints = torch.arange(10, device=device) % 3
    into = torch.empty(1000, device=device)
    found = {
        "item": lambda: t.sum().item(),
        "float": lambda: float(t.sum()),
        "int": lambda: int(t.sum()),
        "cpu": lambda: t.cpu(),
        "to_cpu": lambda: t.to("cpu"),
        "copy_home": lambda: torch.ones(1000).copy_(t),
        "tolist": lambda: t[:3].tolist(),
        "print_repr": lambda: repr(t[:3]),
        "format": lambda: f"{t.sum():.2f}",
        "contains": lambda: 3.0 in t,
        "equal": lambda: torch.equal(t, t),
        "allclose": lambda: torch.allclose(t, t),
        "is_nonzero": lambda: torch.is_nonzero(t.sum()),
        "if_tensor": lambda: bool(t.sum() > 0),
        "bool_mask_index": lambda: t[t > 500],
        "bool_mask_write": lambda: t.clone().__setitem__(
            t > 500, torch.zeros(499, device=device)
        ),
        "bool_mask_fill": lambda: t.clone().__setitem__(t > 500, 0.0),
        "nonzero": lambda: torch.nonzero(t > 500),
        "argwhere": lambda: torch.argwhere(t > 500),
        "where_one_arg": lambda: torch.where(t > 500),
        "masked_select": lambda: torch.masked_select(t, t > 500),
        "unique": lambda: torch.unique(ints),
        "unique_consecutive": lambda: torch.unique_consecutive(ints),
        "repeat_interleave": lambda: torch.repeat_interleave(ints, ints),
        "bincount": lambda: torch.bincount(ints),
        "to_cpu_nonblocking": lambda: t.to("cpu", non_blocking=True),
        "device_only_math": lambda: (t * 2).sum(),
        "where_three_args": lambda: torch.where(t > 500, t, 0.0),
        "masked_fill": lambda: t.masked_fill(t > 500, 0.0),
        "pageable_h2d": lambda: torch.ones(1000).to(device),
        "nonblocking_h2d": lambda: torch.ones(1000).to(device, non_blocking=True),
        "copy_upload": lambda: into.copy_(torch.ones(1000)),
        "tensor_on_device": lambda: torch.tensor([1.0, 2.0], device=device),
        "as_tensor_on_device": lambda: torch.as_tensor([1.0, 2.0], device=device),
    }
    if device.type == "cuda":
        found["pinned_h2d"] = lambda: torch.ones(1000).pin_memory().to(device)
        found["cuda_method"] = lambda: torch.ones(1000).cuda()
        found["synchronize"] = torch.cuda.synchronize
    return found


def rows() -> list[dict[str, str]]:
    """The table as rows, for the Reference guide and ``course doctor``."""
    return [
        {"op": r.op, "kind": r.kind, "source": r.source, "pattern": r.pattern}
        for r in RULES
    ]


__all__ = [
    "patterns",
    "COPYING_FACTORIES",
    "READS",
    "RULES",
    "STORE_SIZE",
    "SyncRule",
    "rows",
    "size_sync",
]
