"""Count host-device synchronisations, the hidden cost of "just printing the loss".

Every time Python needs a *value* that lives on the GPU (``loss.item()``,
``float(t)``, ``print(t)``, ``t.cpu()``, ``t.to("cpu")``, ``if t > 0:``,
``numpy.asarray(t)``, ``cupy.asnumpy(a)``, the same on the simulated device
arrays of :mod:`course.fakecupy`...) the host must stop and wait for the GPU to
finish all queued work, then copy the value back. One such wait per training
step can make a GPU slower than a CPU.

:class:`SyncCounter` counts those calls. It counts them on the CPU too, where they
cost nothing, so an exercise can be graded the same way on every machine::

    from course.sync import SyncCounter

    with SyncCounter() as syncs:
        train(model, X, y, num_epochs=100, log_every=10)
    print(syncs.count)        # 10 if the loss is read every 10 epochs

Only the outermost call is counted: ``print(t)`` reads values internally with
``.tolist()``, but it is one synchronisation, not many.

**Where a tensor lives.** On a GPU machine, ``t.device`` says it. On a machine
without one, the counter *simulates* a GPU (a torch function mode watches every
torch call in the block): every tensor is taken to be on the device, as the
lesson's ``device`` would put it on a GPU, except those made on the host in the
block: the results of ``.cpu()``, ``.to("cpu")``, ``torch.from_numpy``, a
factory (``torch.tensor``, ``torch.zeros``...) called without a ``device``, and
what is computed from host tensors only. So ``.to("cpu")`` and ``.cpu()`` of a
device tensor count one synchronisation each, and return a host tensor, here as
there; reading a host tensor (``.item()`` of it) counts nothing; and
:meth:`SyncCounter.on_device` tells a result left on the device from one brought
home. Writing a device value into a host tensor (``host[i] = loss``,
``host.copy_(loss)``) is a copy home: one synchronisation.

An explicit wait (``torch.cuda.synchronize()``, :func:`course.timing.synchronize`)
is one synchronisation too. A copy home with ``non_blocking=True``
(``t.to("cpu", non_blocking=True)``, or ``copy_`` into pinned memory) is
queued, not a sync, and its host tensor holds its values only after the next
synchronisation: see :meth:`SyncCounter.unfinished` and
:attr:`SyncCounter.early_reads`.
"""

from __future__ import annotations

import functools
import itertools
import sys
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch

from course.devicecalls import caller
from course.streams import StreamBook, install
from course.syncstate import ACTIVE, ACTIVE_LOCK, SyncEvent, note_wait
from course.syncwatch import HOST_TAG, QUEUED_TAG, Watch, tag_tensor
from course.syncwatch import mark_host as mark_host  # a public name of this module
from course.transfers import StoreWindow

install()  # simulated CUDA streams where torch has none (course.streams)


#: ``cupy.ndarray`` methods that copy to the host (those a CuPy lacks are skipped).
_CUPY_METHODS = tuple(
    "get item tolist tobytes tofile dump dumps __float__ __int__ __complex__ "
    "__bool__ __repr__ __str__ __format__ __reduce__".split()
)
_CUPY_FUNCTIONS = ("asnumpy",)


def summary_of(events: list[SyncEvent]) -> str:
    """One line per operation, with where the first call came from."""
    if not events:
        return "no host-device synchronisation"
    lines = [f"{len(events)} host-device synchronisation(s):"]
    first: dict[str, str] = {}
    for event in events:
        first.setdefault(event.op, event.where)
    for op, n in Counter(event.op for event in events).items():
        lines.append(f"  {n:5d} x {op}  (first at {first[op]})")
    return "\n".join(lines)


class SyncCounter:
    """Context manager that counts host-device synchronisations.

    Args:
        simulate: take every tensor to be on a GPU unless made on the host in
            the block (see the module's notes). ``None``: simulate where torch
            sees no CUDA or MPS device.

    Attributes:
        events: every counted call as :class:`SyncEvent`: torch's, in order,
            then the simulated GPU's (:mod:`course.fakecupy`), which its store
            counted, in order.
        count: how many were counted.
        torch_count: how many of them torch calls.
        simulated: whether this counter simulates the GPU.
        unpatched: operations that could not be watched here. CuPy 13 and later
            define ``cupy.ndarray`` as a Python subclass of a compiled base, so
            its methods are wrapped; an older CuPy whose compiled ``ndarray``
            refuses new attributes lists them here, and then only
            ``cupy.asnumpy`` is seen.
    """

    _active_lock = ACTIVE_LOCK  # course.syncstate's: the counters in use
    _active: list[SyncCounter] = ACTIVE
    _tokens = itertools.count()

    def __init__(self, simulate: bool | None = None) -> None:
        self._torch: list[SyncEvent] = []
        self._window = StoreWindow()
        self._patches: list[tuple[Any, str, Any, bool]] = []
        self._local = threading.local()
        self.unpatched: list[str] = []
        if simulate is None:
            mps = getattr(torch.backends, "mps", None)
            simulate = not (
                torch.cuda.is_available() or (mps is not None and mps.is_available())
            )
        self.simulated = bool(simulate)
        self._watch: Watch | None = None
        self._timeline: list[tuple[str, SyncEvent]] = []  # syncs and uploads
        self._waits = 0  # synchronisations so far: a queued copy arrives at the next
        #: each use of a queued copy home before a wait (on a GPU: garbage)
        self.early_reads: list[SyncEvent] = []
        #: copies to the device that moved a module built in the block (a
        #: test's ``make_model()``): setup, not counted
        self.setup: list[SyncEvent] = []
        self._token = next(SyncCounter._tokens)  # ids of dead counters are reused
        self._streams = StreamBook(self)

    @property
    def events(self) -> list[SyncEvent]:
        """Every synchronising call (see the class)."""
        found = self._window.events(("sync",))
        return [*self._torch, *(SyncEvent(e[1], e[3] or "?") for e in found)]

    @property
    def count(self) -> int:
        """Number of synchronising calls counted so far."""
        return len(self.events)

    @property
    def torch_count(self) -> int:
        """Number of them that were torch calls."""
        return len(self._torch)

    @property
    def torch_events(self) -> list[tuple[str, str]]:
        """``(op, where)`` of each torch call counted, in order."""
        return [(event.op, event.where) for event in self._torch]

    @property
    def timeline(self) -> list[tuple[str, str, str]]:
        """The synchronisations this counter recorded (torch's reads, explicit
        waits, CuPy's copies home) and torch's copies to the device, in the
        order they happened, as ``(kind, op, where)``: kind ``"sync"``, or
        ``"upload"`` for ``.to(device)`` of a host tensor (its op says
        whether ``non_blocking``, from pinned memory, and on which stream
        if not the default). On a simulated GPU a host tensor is one made on
        the host in the block (see the module). Where streams are used, the
        kinds ``"wait"``, ``"use"`` and ``"record"`` say what each stream
        waited for and read (:mod:`course.streams`, :func:`read_streams`)."""
        return [(kind, event.op, event.where) for kind, event in self._timeline]

    def _upload(
        self,
        queued: bool,
        from_pinned: bool,
        op: str | None = None,
        parameter: bool = False,
    ) -> int | None:
        """A copy to the device was issued: an upload in the timeline and,
        without ``non_blocking=True``, a synchronisation (torch's ``copy_``
        waits for it: :mod:`course.syncrules`). A parameter moved by a module
        built in the block is the test's setup, kept apart (:attr:`setup`);
        a buffer (a loss's class weights, say) is not. Returns the stream it
        was issued on (:mod:`course.streams`; None: setup)."""
        if op is None:
            op = (
                "Tensor.to(device, non_blocking=True)"
                if queued
                else "Tensor.to(device)"
            )
            op += " from pinned memory" if from_pinned else ""
        if parameter and getattr(self._local, "setup", 0):
            self.setup.append(SyncEvent(op, caller()))
            return None
        stream = self._streams.current()
        op += f" on stream {stream}" if stream else ""
        self._timeline.append(("upload", SyncEvent(op, caller())))
        self._streams.issued(stream)
        if not queued:
            self._record(op, None)
        return stream

    def on_device(self, tensor: torch.Tensor) -> bool:
        """Whether ``tensor`` lives on the device: its real device on a GPU
        machine; on a simulated one, unless it was made on the host."""
        if tensor.device.type != "cpu":
            return True
        return self.simulated and not getattr(tensor, HOST_TAG, False)

    def unfinished(self, tensor: Any) -> bool:
        """Whether ``tensor`` is a ``non_blocking`` copy home that no
        synchronisation has waited for yet (its values are not there)."""
        tag = getattr(tensor, QUEUED_TAG, None)
        return tag == (id(self), self._waits)

    def _queued(self, tensor: Any, queued: bool) -> Any:
        if queued and isinstance(tensor, torch.Tensor):
            tag_tensor(tensor, QUEUED_TAG, (id(self), self._waits))
        return tensor

    def _check_finished(self, op: str, tensors: list[torch.Tensor]) -> None:
        if any(self.unfinished(t) for t in tensors):
            self.early_reads.append(SyncEvent(f"torch {op}", caller()))

    def by_op(self) -> dict[str, int]:
        """Counts per operation name, e.g. ``{"Tensor.item": 10}``."""
        return dict(Counter(event.op for event in self.events))

    def summary(self) -> str:
        """One line per operation, with where the first call came from."""
        return summary_of(self.events)

    def _record(self, op: str, value: Any) -> None:
        """One synchronisation: ``op`` read or copied ``value`` home."""
        event = SyncEvent(op, caller())
        self._torch.append(event)
        self._timeline.append(("sync", event))
        self._waits += 1

    def _placed(self, out: Any, on_device: bool) -> Any:
        """``.cpu()``'s or ``.to()``'s result where the call put it: on a
        simulated GPU, a new alias (``.cpu()`` of a CPU tensor is the tensor
        itself) that is tagged as on the host, or not."""
        if not (self.simulated and isinstance(out, torch.Tensor)):
            return out
        if out.device.type == "cpu":
            try:
                out = out.view_as(out)
            except RuntimeError:  # a tensor with no view (sparse, say)
                out = out.clone()
            if not on_device:
                tag_tensor(out)
        return out

    def _wrap(self, op: str, original: Callable[..., Any]) -> Callable[..., Any]:
        counter = self

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(counter._local, "depth", 0)
            if depth == 0:
                counter._record(op, args[0] if args else None)
            counter._local.depth = depth + 1
            try:
                return original(*args, **kwargs)
            finally:
                counter._local.depth = depth

        return wrapper

    def _patch(self, owner: Any, name: str, op: str) -> None:
        had_own = name in vars(owner)
        original = getattr(owner, name, None)
        if original is None:  # not in this version of the library
            return
        try:
            setattr(owner, name, self._wrap(op, original))
        except (TypeError, AttributeError):
            # A compiled type refuses new attributes (cupy.ndarray before 13).
            self.unpatched.append(op)
            return
        self._patches.append((owner, name, original, had_own))

    def __enter__(self) -> SyncCounter:
        with SyncCounter._active_lock:
            if SyncCounter._active:
                raise RuntimeError("SyncCounter cannot be nested; use one at a time.")
            SyncCounter._active.append(self)
        self._patch_from_numpy()
        self._patch_waits()
        self._patch_modules()
        self._streams.patch(self._patches)
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            for name in _CUPY_METHODS:
                self._patch(cupy.ndarray, name, f"cupy.ndarray.{name}")
            for name in _CUPY_FUNCTIONS:
                self._patch(cupy, name, f"cupy.{name}")
        self._window.open()
        self._watch = Watch(self)
        self._watch.__enter__()
        return self

    def _patch_from_numpy(self) -> None:
        """``torch.from_numpy`` (which no torch function mode sees) makes a host
        tensor."""
        original = torch.from_numpy

        @functools.wraps(original)
        def from_numpy(array: Any) -> torch.Tensor:
            tensor = original(array)
            tag_tensor(tensor)
            return tensor

        self._patches.append((torch, "from_numpy", original, True))
        torch.from_numpy = from_numpy

    def _patch_modules(self) -> None:
        """A module built in the block is the block's own: its moves to the
        device (``nn.Module.to``, ``.cuda()``) are setup (:mod:`course.syncrules`)."""
        module = torch.nn.Module
        counter = self
        init, to, cuda = module.__init__, module.to, module.cuda

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            object.__setattr__(self, "_course_built_in", counter._token)

        def moving(original: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(original)
            def move(self: Any, *args: Any, **kwargs: Any) -> Any:
                own = self.__dict__.get("_course_built_in") == counter._token
                before = getattr(counter._local, "setup", 0)
                counter._local.setup = before + own
                try:
                    return original(self, *args, **kwargs)
                finally:
                    counter._local.setup = before

            return move

        for name, original, new in (
            ("__init__", init, __init__),
            ("to", to, moving(to)),
            ("cuda", cuda, moving(cuda)),
        ):
            self._patches.append((module, name, original, True))
            setattr(module, name, new)

    def _patch_waits(self) -> None:
        """``torch.cuda.synchronize()`` is one synchronisation; on a
        simulated GPU it only counts (a CPU build has no CUDA to wait for)."""
        original = torch.cuda.synchronize
        simulated = self.simulated

        @functools.wraps(original)
        def synchronize(*args: Any, **kwargs: Any) -> None:
            if not simulated:
                original(*args, **kwargs)
            note_wait("torch.cuda.synchronize")

        self._patches.append((torch.cuda, "synchronize", original, True))
        torch.cuda.synchronize = synchronize

    def __exit__(self, *exc: object) -> None:
        if self._watch is not None:
            self._watch.__exit__(*exc)
            self._watch = None
        for owner, name, original, had_own in reversed(self._patches):
            if had_own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        self._patches.clear()
        self._window.close()
        with SyncCounter._active_lock:
            SyncCounter._active.remove(self)
