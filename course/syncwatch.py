"""The eyes of :class:`course.sync.SyncCounter` on torch: a function mode.

Every torch call inside a counter's block passes :class:`Watch`, which tells
the counter what the call did: a read of a device value (a synchronisation), a
copy home (waited for, or queued with ``non_blocking``), a copy to the device
(an upload, kept in order with the syncs: :attr:`SyncCounter.timeline`), or,
on a simulated GPU, a tensor made on the host.
"""

from __future__ import annotations

from typing import Any

import torch

from course.syncrules import COPYING_FACTORIES, READS, size_sync
from course.transfers import host_target, non_blocking, pinned

#: Calls that hand a value to Python: one sync when the tensor is on the
#: device (the table: :mod:`course.syncrules`).
_TORCH_READS = READS
#: Calls that read no value: a write fills a tensor; metadata lives on the host.
_NOT_READS = frozenset(
    "copy_ __setitem__ __get__ size dim numel stride element_size is_pinned "
    "is_contiguous data_ptr storage_offset".split()
)
#: Writes into a tensor: a device value written into a host tensor is a copy home.
_TORCH_WRITES = frozenset({"__setitem__", "copy_"})
HOST_TAG = "_course_on_host"  # set on a tensor made on the host in a simulated run
QUEUED_TAG = "_course_queued_copy"  # (counter id, syncs before it) of a queued copy


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


class Watch(torch.overrides.TorchFunctionMode):
    """The counter's eyes on torch: every call in the block passes here."""

    def __init__(self, counter: Any) -> None:  # a course.sync.SyncCounter
        super().__init__()
        self.counter = counter

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        counter, name = self.counter, getattr(func, "__name__", "")
        first = args[0] if args else None
        read = args[1:] if name in _TORCH_WRITES else args  # a write reads its source
        if name not in _NOT_READS or name in _TORCH_WRITES:
            counter._check_finished(name, _tensors(read) + _tensors(kwargs))
        if name == "record_stream" and isinstance(first, torch.Tensor):
            counter._streams.recorded(first, args[1] if len(args) > 1 else None)
        elif name not in _NOT_READS:
            counter._streams.used_by(_tensors(args) + _tensors(kwargs))
        sized = size_sync(name, args, kwargs)
        if sized and any(
            counter.on_device(t) for t in _tensors(args) + _tensors(kwargs)
        ):
            counter._record(sized, first)
        if name in _TORCH_READS and isinstance(first, torch.Tensor):
            if counter.on_device(first):
                op = f"Tensor.{name}" if name not in _FUNCTIONS else f"torch.{name}"
                counter._record(op, first)
            return func(*args, **kwargs)
        if name in ("cpu", "to", "cuda") and isinstance(first, torch.Tensor):
            if name == "cuda":
                home: bool | None = False
            else:
                home = name == "cpu" or host_target(args[1:], kwargs, counter.simulated)
            queued = (
                home
                and counter.on_device(first)
                and non_blocking(args[1:], kwargs, name)
            )
            if home and counter.on_device(first) and not queued:
                op = "Tensor.cpu" if name == "cpu" else "Tensor.to(cpu)"
                counter._record(op, first)
            stream = None
            if home is False and not counter.on_device(first):
                stream = counter._upload(
                    non_blocking(args[1:], kwargs, name),
                    pinned(first),
                    "Tensor.cuda" if name == "cuda" else None,
                    parameter=isinstance(first, torch.nn.Parameter),
                )
            out = func(*args, **kwargs)
            if home is None:  # a dtype only: it stays where it was
                return counter._placed(out, counter.on_device(first))
            out = counter._queued(counter._placed(out, not home), queued)
            if stream is not None:
                counter._streams.copied(_tensors(out))
            return out
        if name in _TORCH_WRITES and isinstance(first, torch.Tensor):
            source = [t for t in _tensors(args[1:]) if counter.on_device(t)]
            into_host = bool(source) and not counter.on_device(first)
            # queued only into pinned memory (a pageable target waits: CUDA's
            # rule), so never on a machine without a GPU
            queued = (
                into_host and non_blocking(args[2:], kwargs, "copy_") and pinned(first)
            )
            if into_host and not queued:
                counter._record(f"Tensor.{name} (device to host)", source[0])
            host_source = [t for t in _tensors(args[1:]) if not counter.on_device(t)]
            stream = None
            if name == "copy_" and counter.on_device(first) and host_source:
                queued_up = non_blocking(args[2:], kwargs, "copy_")
                stream = counter._upload(
                    queued_up,
                    pinned(host_source[0]),
                    "Tensor.copy_ (host to device"
                    + (", non_blocking=True)" if queued_up else ")"),
                )
            out = func(*args, **kwargs)
            if stream is not None:
                counter._streams.copied([first])
            return counter._queued(first, queued) if queued else out
        data = args[0] if args else kwargs.get("data")
        if (
            name in COPYING_FACTORIES
            and host_target((), kwargs, counter.simulated) is False
            and not (isinstance(data, torch.Tensor) and counter.on_device(data))
        ):
            counter._upload(False, False, f"torch.{name}(device=...)")
        out = func(*args, **kwargs)
        if counter.simulated:
            inputs = _tensors(args) + _tensors(kwargs)
            if inputs:
                home = not any(counter.on_device(t) for t in inputs)
            else:  # a factory: on the host unless a device is named
                home = kwargs.get("device") is None
            if home:
                for tensor in _tensors(out):
                    tag_tensor(tensor)
        return out


#: Reads that are torch functions, not Tensor methods (reported as ``torch.NAME``).
_FUNCTIONS = frozenset({"equal", "allclose", "is_nonzero"})


def tag_tensor(tensor: torch.Tensor, name: str = HOST_TAG, value: Any = True) -> None:
    try:
        setattr(tensor, name, value)
    except (AttributeError, RuntimeError):  # a tensor that takes no attributes
        pass


def mark_host(*tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Say that ``tensors`` live on the host (a ``DataLoader``'s dataset, say):
    a simulated GPU takes every tensor made before a counter's block to be on
    the device, as the lesson's ``device`` would put it; these are not, so
    what is cut from them is too, and its ``.to(device)`` is an upload. On a
    GPU, ``t.device`` says where a tensor lives, and this changes nothing.
    Returns ``tensors``."""
    for tensor in tensors:
        tag_tensor(tensor)
    return tensors
