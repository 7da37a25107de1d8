"""Count host-device synchronisations, the hidden cost of "just printing the loss".

Every time Python needs a *value* that lives on the GPU (``loss.item()``,
``float(t)``, ``print(t)``, ``t.cpu()``, ``if t > 0:``, ``cupy.asnumpy(a)``,
the same on the simulated device arrays of :mod:`course.fakecupy`...)
the host must stop and wait for the GPU to finish all queued work, then copy the
value back. One such wait per training step can make a GPU slower than a CPU.

:class:`SyncCounter` counts those calls. It counts them on the CPU too, where they
cost nothing, so an exercise can be graded the same way on every machine::

    from course.sync import SyncCounter

    with SyncCounter() as syncs:
        train(model, X, y, num_epochs=100, log_every=10)
    print(syncs.count)        # 10 if the loss is read every 10 epochs

Only the outermost call is counted: ``print(t)`` reads values internally with
``.tolist()``, but it is one synchronisation, not many. ``t.to("cpu")`` is
counted only when ``t`` is on another device; ``.cpu()`` is counted always.
"""

from __future__ import annotations

import functools
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

_TORCH_METHODS = (
    "item",
    "cpu",
    "numpy",
    "tolist",
    "__float__",
    "__int__",
    "__bool__",
    "__index__",
    "__repr__",
    "__format__",
)
_CUPY_METHODS = (
    "get",
    "item",
    "tolist",
    "__float__",
    "__int__",
    "__bool__",
    "__repr__",
    "__format__",
)
_CUPY_FUNCTIONS = ("asnumpy",)
_SIMULATED_METHODS = (
    "get",
    "item",
    "tolist",
    "__float__",
    "__int__",
    "__bool__",
    "__repr__",
    "__str__",
    "__format__",
)


@dataclass(frozen=True)
class SyncEvent:
    """One synchronising call: what was called and the line that called it."""

    op: str
    where: str


def _caller() -> str:
    """Return ``file:line`` of the first frame outside this module and torch."""
    for frame in reversed(traceback.extract_stack(limit=12)[:-2]):
        name = frame.filename.replace("\\", "/")
        if "/torch/" in name or "/cupy/" in name or name.endswith("course/sync.py"):
            continue
        return f"{name}:{frame.lineno}"
    return "?"


class SyncCounter:
    """Context manager that counts host-device synchronisations.

    Attributes:
        events: every counted call, in order, as :class:`SyncEvent`.
        count: how many were counted.
        unpatched: operations that could not be watched here. CuPy 13 and later
            define ``cupy.ndarray`` as a Python subclass of a compiled base, so
            its methods are wrapped like torch's; an older CuPy whose compiled
            ``ndarray`` refuses new attributes lists them here, and then only
            ``cupy.asnumpy`` is seen.
    """

    _active_lock = threading.Lock()
    _active: list[SyncCounter] = []

    def __init__(self) -> None:
        self.events: list[SyncEvent] = []
        self._patches: list[tuple[Any, str, Any, bool]] = []
        self._local = threading.local()
        self.unpatched: list[str] = []

    @property
    def count(self) -> int:
        """Number of synchronising calls counted so far."""
        return len(self.events)

    def by_op(self) -> dict[str, int]:
        """Counts per operation name, e.g. ``{"Tensor.item": 10}``."""
        return dict(Counter(event.op for event in self.events))

    def summary(self) -> str:
        """One line per operation, with where the first call came from."""
        if not self.events:
            return "no host-device synchronisation"
        lines = [f"{self.count} host-device synchronisation(s):"]
        first: dict[str, str] = {}
        for event in self.events:
            first.setdefault(event.op, event.where)
        for op, n in self.by_op().items():
            lines.append(f"  {n:5d} x {op}  (first at {first[op]})")
        return "\n".join(lines)

    def _wrap(self, op: str, original: Callable[..., Any]) -> Callable[..., Any]:
        counter = self

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(counter._local, "depth", 0)
            if depth == 0:
                counter.events.append(SyncEvent(op, _caller()))
            counter._local.depth = depth + 1
            try:
                return original(*args, **kwargs)
            finally:
                counter._local.depth = depth

        return wrapper

    def _patch(self, owner: Any, name: str, op: str) -> None:
        had_own = name in vars(owner)
        original = getattr(owner, name)
        try:
            setattr(owner, name, self._wrap(op, original))
        except (TypeError, AttributeError):
            # A compiled type refuses new attributes (cupy.ndarray before 13).
            self.unpatched.append(op)
            return
        self._patches.append((owner, name, original, had_own))

    def _patch_torch_to(self) -> None:
        """Count ``t.to("cpu")`` when ``t`` lives on another device.

        On a CPU-only machine ``x.to(device)`` with ``device == cpu`` cannot be
        told apart from a copy back to the host, so it is not counted there; use
        ``.cpu()`` to bring results back, which is counted everywhere.
        """
        counter = self
        original = torch.Tensor.to

        @functools.wraps(original)
        def to(tensor: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            target = kwargs.get("device", args[0] if args else None)
            is_host = isinstance(target, (str, torch.device)) and (
                torch.device(target).type == "cpu"
            )
            leaves_device = is_host and tensor.device.type != "cpu"
            if leaves_device and getattr(counter._local, "depth", 0) == 0:
                counter.events.append(SyncEvent("Tensor.to(cpu)", _caller()))
            return original(tensor, *args, **kwargs)

        had_own = "to" in vars(torch.Tensor)
        torch.Tensor.to = to
        self._patches.append((torch.Tensor, "to", original, had_own))

    def __enter__(self) -> SyncCounter:
        with SyncCounter._active_lock:
            if SyncCounter._active:
                raise RuntimeError("SyncCounter cannot be nested; use one at a time.")
            SyncCounter._active.append(self)
        for name in _TORCH_METHODS:
            self._patch(torch.Tensor, name, f"Tensor.{name}")
        self._patch_torch_to()
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            for name in _CUPY_METHODS:
                self._patch(cupy.ndarray, name, f"cupy.ndarray.{name}")
            for name in _CUPY_FUNCTIONS:
                self._patch(cupy, name, f"cupy.{name}")
        fake = sys.modules.get("course.fakecupy")
        if fake is not None:
            for name in _SIMULATED_METHODS:
                self._patch(fake.DeviceArray, name, f"DeviceArray.{name}")
            self._patch(fake.fake_cupy, "asnumpy", "fake_cupy.asnumpy")
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original, had_own in reversed(self._patches):
            if had_own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        self._patches.clear()
        with SyncCounter._active_lock:
            SyncCounter._active.remove(self)
