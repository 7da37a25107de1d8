"""The eyes of :class:`course.sync.SyncCounter` on torch: a function mode.

Every torch call inside a counter's block passes :class:`_Watch`, which tells
the counter what the call did: a read of a device value (a synchronisation), a
copy home (waited for, or queued with ``non_blocking``), a copy to the device
(an upload, kept in order with the syncs: :attr:`SyncCounter.timeline`), or,
on a simulated GPU, a tensor made on the host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from course.transfers import host_target, non_blocking, pinned

if TYPE_CHECKING:
    from course.sync import SyncCounter

#: Tensor methods that hand a value to Python: one sync when the tensor is on
#: the device. ``__array__`` is ``numpy.asarray(t)``; ``__contains__`` (``x in
#: t``) calls ``.item()``; ``__repr__`` and ``__format__`` are ``print(t)``
#: and ``f"{t}"``.
_TORCH_READS = frozenset(
    "item numpy tolist __array__ __float__ __int__ __complex__ __bool__ "
    "__index__ __contains__ __repr__ __format__".split()
)
#: Calls that read no value: a write fills a tensor; metadata lives on the host.
_NOT_READS = frozenset(
    "copy_ __setitem__ __get__ size dim numel stride element_size is_pinned "
    "is_contiguous data_ptr storage_offset".split()
)
#: Writes into a tensor: a device value written into a host tensor is a copy home.
_TORCH_WRITES = frozenset({"__setitem__", "copy_"})
_HOST_TAG = "_course_on_host"  # set on a tensor made on the host in a simulated run
_QUEUED_TAG = "_course_queued_copy"  # (counter id, syncs before it) of a queued copy


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


class _Watch(torch.overrides.TorchFunctionMode):
    """The counter's eyes on torch: every call in the block passes here."""

    def __init__(self, counter: SyncCounter) -> None:
        super().__init__()
        self.counter = counter

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        counter, name = self.counter, getattr(func, "__name__", "")
        first = args[0] if args else None
        read = args[1:] if name in _TORCH_WRITES else args  # a write reads its source
        if name not in _NOT_READS or name in _TORCH_WRITES:
            counter._check_finished(name, _tensors(read) + _tensors(kwargs))
        if name in _TORCH_READS and isinstance(first, torch.Tensor):
            if counter.on_device(first):
                counter._record(f"Tensor.{name}", first)
            return func(*args, **kwargs)
        if name in ("cpu", "to") and isinstance(first, torch.Tensor):
            home = name == "cpu" or host_target(args[1:], kwargs, counter.simulated)
            queued = home and counter.on_device(first) and non_blocking(args, kwargs)
            if home and counter.on_device(first) and not queued:
                op = "Tensor.cpu" if name == "cpu" else "Tensor.to(cpu)"
                counter._record(op, first)
            if home is False and not counter.on_device(first):
                counter._upload(non_blocking(args, kwargs), pinned(first))
            out = func(*args, **kwargs)
            if home is None:  # a dtype only: it stays where it was
                return counter._placed(out, counter.on_device(first))
            return counter._queued(counter._placed(out, not home), queued)
        if name in _TORCH_WRITES and isinstance(first, torch.Tensor):
            source = [t for t in _tensors(args[1:]) if counter.on_device(t)]
            into_host = bool(source) and not counter.on_device(first)
            # queued only into pinned memory (a pageable target waits: CUDA's
            # rule), so never on a machine without a GPU
            queued = into_host and non_blocking(args[2:], kwargs) and pinned(first)
            if into_host and not queued:
                counter._record(f"Tensor.{name} (device to host)", source[0])
            out = func(*args, **kwargs)
            return counter._queued(first, queued) if queued else out
        out = func(*args, **kwargs)
        if counter.simulated:
            inputs = _tensors(args) + _tensors(kwargs)
            if inputs:
                home = not any(counter.on_device(t) for t in inputs)
            else:  # a factory: on the host unless a device is named
                home = kwargs.get("device") is None
            if home:
                for tensor in _tensors(out):
                    _tag(tensor)
        return out


def _tag(tensor: torch.Tensor, name: str = _HOST_TAG, value: Any = True) -> None:
    try:
        setattr(tensor, name, value)
    except (AttributeError, RuntimeError):  # a tensor that takes no attributes
        pass
