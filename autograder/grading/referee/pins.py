"""The course's modules as they were before any student code ran, in the kernel.

Before the notebook's first cell, :func:`pin` notes each course module the
kernel has loaded, and each function, class and submodule it binds (the warm
server calls it once it has loaded the course, so every kernel it forks has
the note; a cold kernel calls it as it confines itself). Then:

* :func:`restore` puts them back before each request of a test, so a name a
  test (or the course's own code, at that request) looks up is the course's,
  whatever the notebook assigned to it: ``course.sync.SyncCounter = Quiet``
  or ``course.gpumodel.tracing.Trace = Fake`` changes nothing a test reads;
  the methods of the counting classes (``SyncCounter``, its function mode,
  its stream book, the tracer's classes) are put back the same way, so
  ``SyncCounter._record = ...`` in a cell is undone before the test counts;
* the counters a test uses are made and read through what was bound here
  (:data:`OPS`): ``SyncCounter`` is the pinned class, entered and left with
  its pinned methods, and what the referee reads is the counter's own record
  (its lists, read as data), never a property or method looked up on the
  class; a torch trace (:func:`course.gpumodel.trace`) is run with the
  pinned classes and sent back as its events, which the referee reads with
  its own :class:`course.gpumodel.tracing.Trace`.

What this does not reach: the counting itself still happens in this process
(torch's function modes, the trace's dispatch mode), so code that runs
during a test's call can rewrite what counts for the rest of that call, and
code that reaches into the agent (this module, its operations) can change
what it answers. The Reference guide's guarantees table says what that
leaves open.
"""

from __future__ import annotations

import sys
import types
from typing import Any

_KINDS = (types.FunctionType, type, types.ModuleType)


def _course(name: str) -> bool:
    return name == "course" or name.startswith("course.")


#: Each pinned course module and the names it bound then (see :func:`pin`).
PINNED: dict[str, tuple[types.ModuleType, dict[str, Any]]] = {}
#: The counting classes whose methods are put back too (no course code
#: replaces these; the streams' event classes, which a counter patches while
#: it is open, are not among them).
_CLASSES = (
    ("course.sync", "SyncCounter"),
    ("course.syncwatch", "Watch"),
    ("course.streams", "StreamBook"),
    ("course.gpumodel.tracing", "Trace"),
    ("course.gpumodel.tracing", "_Recorder"),
    ("course.gpumodel.tracing", "_Syncs"),
)
_METHODS = (types.FunctionType, property, classmethod, staticmethod)
#: Each pinned class and its methods and properties as they were.
_CLASS_PINS: list[tuple[type, dict[str, Any]]] = []


def pin() -> None:
    """Note each loaded course module not noted yet, with the functions,
    classes and submodules it binds now. Called before any student code runs:
    by the warm server once it has loaded the course (its kernels inherit
    this), and by a cold kernel as it confines itself. A module loaded only
    later (a cold kernel's) is not pinned: :func:`_pinned` loads it as it is."""
    for name, module in list(sys.modules.items()):
        if name in PINNED or not _course(name):
            continue
        if isinstance(module, types.ModuleType):
            names = {k: v for k, v in vars(module).items() if isinstance(v, _KINDS)}
            PINNED[name] = (module, names)
    for module_name, class_name in _CLASSES:
        kind = PINNED.get(module_name, (None, {}))[1].get(class_name)
        if isinstance(kind, type) and all(kind is not k for k, _ in _CLASS_PINS):
            own = {k: v for k, v in vars(kind).items() if isinstance(v, _METHODS)}
            _CLASS_PINS.append((kind, own))
    if "course.sync" in PINNED and not _SYNC:
        _sync("class")  # its methods, taken now


_dict_get = dict.get
_setitem = dict.__setitem__
_type_setattr = type.__setattr__
_type_delattr = type.__delattr__
_type_dict = type.__dict__["__dict__"].__get__


def restore() -> None:
    """Put back every pinned module and name, and the counting classes'
    methods (see the module)."""
    modules = sys.modules
    for name, (module, names) in PINNED.items():
        if _dict_get(modules, name) is not module:
            _setitem(modules, name, module)
        space = module.__dict__
        for key, value in names.items():
            if _dict_get(space, key) is not value:
                _setitem(space, key, value)
    for kind, own in _CLASS_PINS:
        space = _type_dict(kind)
        for key, value in own.items():
            if space.get(key) is not value:
                _type_setattr(kind, key, value)
        for key in [k for k, v in space.items() if k not in own]:
            if isinstance(space[key], _METHODS):  # one the answer added
                _type_delattr(kind, key)


def _pinned(module: str, name: str) -> Any:
    """``module.name`` as pinned; loaded now if the module was not loaded then."""
    found = PINNED.get(module)
    if found is not None:
        return found[1][name]
    import importlib

    return getattr(importlib.import_module(module), name)


_vars = object.__getattribute__
_SYNC: dict[str, Any] = {}


def _sync(name: str) -> Any:
    """The pinned ``SyncCounter`` (``"class"``), its methods, ``SyncEvent``."""
    if not _SYNC:
        kind = _pinned("course.sync", "SyncCounter")
        names = ("__enter__", "__exit__", "on_device", "unfinished")
        methods = {k: kind.__dict__[k] for k in names}
        _SYNC.update(methods, event=_pinned("course.sync", "SyncEvent"))
        _SYNC["class"] = kind
    return _SYNC[name]


def _counter(value: Any) -> Any:
    if _sync("class") not in type(value).__mro__:
        raise TypeError("not a counter the referee made")
    return value


def make_sync(simulate: Any = None) -> Any:
    """A :class:`course.sync.SyncCounter` of the pinned class."""
    return _sync("class")(simulate)


def _event(event: Any) -> tuple[str, str] | None:
    if type(event) is not _sync("event"):
        return None
    found = _vars(event, "__dict__")
    return (str(found.get("op", "")), str(found.get("where", "")))


def read_sync(counter: Any, part: str) -> Any:
    """Part of a counter's own record, as data: ``torch`` ((op, where) of
    torch's syncs), ``timeline`` ((kind, op, where)), ``early_reads`` and
    ``setup`` ((op, where)), ``unpatched`` (names), ``simulated``."""
    record = _vars(_counter(counter), "__dict__")
    if part == "simulated":
        return bool(record.get("simulated"))
    if part == "unpatched":
        return tuple(str(x) for x in list(record.get("unpatched") or ()))
    if part == "timeline":
        found = []
        for item in list(record.get("_timeline") or ()):
            if type(item) is tuple and len(item) == 2 and _event(item[1]):
                found.append((str(item[0]), *_event(item[1])))
        return tuple(found)
    key = {"torch": "_torch", "early_reads": "early_reads", "setup": "setup"}[part]
    return tuple(e for e in map(_event, list(record.get(key) or ())) if e)


def run_trace(fn: Any) -> tuple[Any, ...]:
    """``course.gpumodel.trace(fn)`` with the pinned classes: its events as
    ``(kind, name, flops, bytes, dtype, part, library)``."""
    syncs = _pinned("course.gpumodel.tracing", "_Syncs")
    recorder = _pinned("course.gpumodel.tracing", "_Recorder")
    event_class = _pinned("course.gpumodel.tracing", "Event")
    events: list[Any] = []
    with syncs(events), recorder(events):
        fn()
    found = []
    for event in list(events):
        if type(event) is not event_class:
            continue
        data = _vars(event, "__dict__")
        found.append(
            (
                str(data["kind"]),
                str(data["name"]),
                float(data["flops"]),
                float(data["bytes"]),
                str(data["dtype"]).removeprefix("torch."),
                str(data["part"]),
                str(data["library"]),
            )
        )
    return tuple(found)


#: The agent's operations on the pinned counters (see the module).
OPS: dict[str, Any] = {
    "sync.make": make_sync,
    "sync.enter": lambda counter: _sync("__enter__")(_counter(counter)),
    "sync.exit": lambda c: _sync("__exit__")(_counter(c), None, None, None),
    "sync.read": read_sync,
    "sync.on_device": lambda c, t: bool(_sync("on_device")(_counter(c), t)),
    "sync.unfinished": lambda c, t: bool(_sync("unfinished")(_counter(c), t)),
    "trace.run": run_trace,
}

__all__ = ["OPS", "PINNED", "pin", "restore"]
