"""The delegation probe's side in its kernel: helpers watched beside a task.

:class:`Watch` replaces each function a task's answer cell defines with a
wrapper. While the task's hidden test runs, each call of it is also made to
every public function and class of every ``course`` module (:func:`public_callables`),
on a deep copy of the call's inputs, with Python's, NumPy's and torch's global
random generators set back to what the reference saw, and confined
(:func:`_confined`: a time limit, a cap on address space, no output, the
environment and working folder restored). A helper stays a candidate while its
result, or one attribute or item of it (:func:`parts`), agrees with the
reference's on every call; a helper that raises agrees when the reference raised
the same. Where the reference returns None, the inputs it changed must agree
too. Once the test ends, it runs again with each candidate standing in for the
function (:func:`substitute`), and once with the reference itself (the control),
and every run's results go out as one output of type :data:`MIME`, for
:mod:`autograder.publish.probe` to compare with the reference's.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import importlib
import io
import os
import pkgutil
import signal
import sys
import time
import warnings
from typing import Any

#: The output type of the probe's findings, one per watched hidden test.
MIME = "application/vnd.gpu-course.probe+json"
#: Helpers never tried: they send results to the grader and compute nothing.
SKIP = frozenset({"course.results.submit"})
#: The kernel global that holds the :class:`Watch`.
NAME = "__course_probe__"
_LOOSE = 1e-2  # rtol and atol of the per-call comparison (the rerun is exact)
_CALL_SECONDS = 2.0  # a helper's call may take this, or 10x the reference's
_MEMORY_SLACK = 4 * 1024**3  # address space a helper's call may add
_MAX_PARTS = 32  # attributes or items looked at per result
_EVERY = object()  # a helper's call agrees at whatever path


def substitute(function: str, helper: str, path: str = "") -> str:
    """Code that makes ``function`` call ``helper`` (``module.name``) and return
    its result, or the attribute or item ``path`` of it (``.device``, ``[0]``)."""
    module, _, name = helper.rpartition(".")
    alias = f"_probe_{function}"
    return (
        f"from {module} import {name} as {alias}\n\n\n"
        f"def {function}(*args, **kwargs):\n"
        f"    return {alias}(*args, **kwargs){path}\n"
    )


def public_callables() -> dict[str, Any]:
    """``{"course.module.name": object}``: every public function and class that
    a ``course`` module defines (modules already imported count too)."""
    import course

    names = {m.name for m in pkgutil.walk_packages(course.__path__, "course.")}
    names |= {n for n in sys.modules if n.startswith("course.")}
    found: dict[str, Any] = {}
    for module_name in sorted(names):
        with contextlib.suppress(Exception):
            module = importlib.import_module(module_name)
            public = getattr(module, "__all__", None) or [
                n for n in vars(module) if not n.startswith("_")
            ]
            for name in public:
                obj = getattr(module, name, None)
                label = f"{module_name}.{name}"
                if (
                    callable(obj)
                    and getattr(obj, "__module__", None) == module_name
                    and label not in SKIP
                ):
                    found[label] = obj
    return found


def parts(value: Any) -> dict[str, Any]:
    """``{path: value}`` of a result's attributes or items, one level deep."""
    if isinstance(value, (str, bytes, int, float, type)) or value is None:
        return {}
    if type(value).__module__.split(".")[0] in ("numpy", "torch", "cupy"):
        return {}
    found: dict[str, Any] = {}
    if dataclasses.is_dataclass(value):
        fields = dataclasses.fields(value)
        found = {f".{f.name}": getattr(value, f.name) for f in fields}
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        found = {f".{n}": getattr(value, n) for n in value._fields}
    elif isinstance(value, dict):
        found = {
            f"[{k!r}]": v
            for k, v in value.items()
            if type(k) in (str, int, bool) or k is None
        }
    elif isinstance(value, (list, tuple)):
        found = {f"[{i}]": v for i, v in enumerate(value[:_MAX_PARTS])}
    elif hasattr(value, "__dict__") and not callable(value):
        found = {
            f".{k}": v
            for k, v in vars(value).items()
            if not k.startswith("_") and not callable(v)
        }
    if not isinstance(value, (dict, list, tuple)):
        for name in dir(type(value)):
            if not name.startswith("_") and isinstance(
                getattr(type(value), name, None), property
            ):
                with contextlib.suppress(Exception):
                    found[f".{name}"] = getattr(value, name)
    return dict(list(found.items())[:_MAX_PARTS])


def _copy(call: tuple) -> tuple:
    """A deep copy of ``(args, kwargs)``; modules passed (``xp=np``) stay."""
    import types

    args, kwargs = call
    memo = {
        id(v): v for v in (*args, *kwargs.values()) if isinstance(v, types.ModuleType)
    }
    return copy.deepcopy(call, memo)


def _rng() -> tuple:
    import random

    import numpy as np

    torch = sys.modules.get("torch")
    return (
        random.getstate(),
        np.random.get_state(),
        torch.get_rng_state() if torch is not None else None,
    )


def _set_rng(state: tuple) -> None:
    import random

    import numpy as np

    random.setstate(state[0])
    np.random.set_state(state[1])
    if state[2] is not None:
        sys.modules["torch"].set_rng_state(state[2])


class _TooSlow(BaseException):
    """A helper's call ran past its time (raised by the probe's timer)."""


@contextlib.contextmanager
def _confined(seconds: float):
    """Time, memory, output, warnings, environment and cwd of one helper's call."""
    import resource

    def expire(*_):
        raise _TooSlow

    environ, cwd = dict(os.environ), os.getcwd()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as handle:
        used = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = used + _MEMORY_SLACK
    old = signal.signal(signal.SIGALRM, expire)
    plt = sys.modules.get("matplotlib.pyplot")
    figures = set(plt.get_fignums()) if plt else set()
    try:
        with contextlib.suppress(ValueError, OSError):
            if soft == resource.RLIM_INFINITY or cap < soft:
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        signal.setitimer(signal.ITIMER_REAL, seconds)
        with (
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        if dict(os.environ) != environ:
            os.environ.clear()
            os.environ.update(environ)
        if os.getcwd() != cwd:
            os.chdir(cwd)
        for number in set(plt.get_fignums()) - figures if plt else ():
            plt.close(number)


def _outcome(call) -> Any:
    from course.results import Raised

    try:
        return call()
    except (Exception, SystemExit, _TooSlow) as exc:
        mro = tuple(c.__name__ for c in type(exc).__mro__)
        return Raised(type(exc).__name__, mro, str(exc)[:300])


def _agrees(want: Any, value: Any) -> bool:
    """``value`` is close to the reference's result tree ``want`` (values and
    shapes; loose tolerance)."""
    from autograder.grading.compare import compare
    from course.results import encode

    loose = {"t": "approx", "v": want, "rtol": _LOOSE, "atol": _LOOSE, "strict": False}
    try:
        return not compare(loose, encode(value))
    except Exception:
        return False


class Watch:
    """Runs every helper beside the watched task functions (kernel side)."""

    def __init__(self) -> None:
        self.helpers: dict[str, Any] | None = None
        self.watching: str | None = None  # the task whose hidden test runs
        self.busy = False
        self.functions: dict[str, dict[str, Any]] = {}  # task -> {name: reference}
        self.alive: dict[tuple[str, str], dict[str, set[str] | None]] = {}
        self.calls: dict[tuple[str, str], int] = {}
        self.state: tuple | None = None

    def wrap(self, ns: dict, task: str, names: list[str]) -> None:
        """Watch the functions ``names`` that the task's answer cell defined."""
        import types

        if self.helpers is None:
            self.helpers = public_callables()
        for name in names:
            function = ns.get(name)
            if isinstance(function, types.FunctionType):
                self.functions.setdefault(task, {})[name] = function
                self.alive[(task, name)] = dict.fromkeys(self.helpers)
                ns[name] = self._wrapper(task, name, function)

    def _wrapper(self, task: str, name: str, function: Any) -> Any:
        from course.results import Raised

        @functools.wraps(function)
        def watched(*args, **kwargs):
            if self.busy or self.watching != task or not self.alive[(task, name)]:
                return function(*args, **kwargs)
            self.busy = True
            try:
                snapshot, before = _copy((args, kwargs)), _rng()
            except Exception:
                snapshot = None
            began, error, result = time.perf_counter(), None, None
            try:
                result = function(*args, **kwargs)
            except Exception as exc:
                error = exc
                mro = tuple(c.__name__ for c in type(exc).__mro__)
                result = Raised(type(exc).__name__, mro, str(exc)[:300])
            finally:
                self.busy = False
            if snapshot is not None:
                seconds = time.perf_counter() - began
                after = _rng()
                self.busy = True
                try:
                    self._try(
                        task, name, result, args, kwargs, snapshot, before, seconds
                    )
                finally:
                    self.busy = False
                    _set_rng(after)
            if error is not None:
                raise error
            return result

        return watched

    def _try(self, task, name, result, args, kwargs, snapshot, before, took) -> None:
        from course.results import encode

        key = (task, name)
        want = encode(result)
        inputs = encode([list(args), kwargs]) if result is None else None
        seconds = max(_CALL_SECONDS, 10 * took)
        self.calls[key] = self.calls.get(key, 0) + 1
        for label, paths in list(self.alive[key].items()):
            _set_rng(before)
            kept = self._judge(self.helpers[label], want, inputs, snapshot, seconds)
            if kept is _EVERY:  # raised as the reference did: so would any part
                kept = paths
            elif paths is not None:
                kept &= paths
            if kept is None or kept:
                self.alive[key][label] = kept
            else:
                del self.alive[key][label]

    @staticmethod
    def _judge(helper, want, inputs, snapshot, seconds) -> Any:
        """The paths (``""``: the result itself) at which one call of ``helper``
        on a copy of the inputs agrees with the reference's result ``want``, or
        :data:`_EVERY`."""
        from course.results import Raised

        args, kwargs = _copy(snapshot)
        try:
            with _confined(seconds):
                got = _outcome(lambda: helper(*args, **kwargs))
                if inputs is not None and not _agrees(inputs, [list(args), kwargs]):
                    return set()
                if isinstance(got, Raised):  # then so does every attribute of it
                    return _EVERY if _agrees(want, got) else set()
                found = {"": got, **parts(got)}
                return {path for path, v in found.items() if _agrees(want, v)}
        except _TooSlow:
            return set()

    def enter(self, task: str) -> None:
        """The task's hidden test starts: watch its calls."""
        self.watching, self.state = task, _rng()

    def leave(self, ns: dict, task: str, test: str, source: str) -> None:
        """The hidden test ended: run it again with each helper that agreed on
        every call standing in, and send what each run's test sent."""
        from IPython.display import publish_display_data

        self.watching = None
        report: dict[str, Any] = {
            "task": task,
            "test": test,
            "helpers": len(self.helpers or ()),
            "calls": {},
            "control": None,
            "candidates": [],
        }
        for name in self.functions.get(task, {}):
            key = (task, name)
            report["calls"][name] = self.calls.get(key, 0)
            for label, paths in sorted(self.alive[key].items()):
                for path in sorted(paths or {""}) if self.calls.get(key) else ():
                    code = substitute(name, label, path)
                    report["candidates"].append(
                        {"function": name, "helper": label, "path": path, "code": code}
                    )
        if report["candidates"]:
            report["control"] = self._rerun(ns, source, None, "")
            for entry in report["candidates"]:
                entry.update(self._rerun(ns, source, entry["function"], entry["code"]))
        publish_display_data(
            {MIME: report, "text/plain": f"<probe of {task}>"}, metadata={}
        )

    def _rerun(self, ns: dict, source: str, name: str | None, code: str) -> dict:
        """Run the hidden test again (``name`` replaced by ``code``'s function)."""
        from IPython import get_ipython

        import course.results

        sent: list[Any] = []
        real = course.results.submit
        saved = ns.get(name) if name else None
        course.results.submit = lambda results, *_, **__: sent.append(
            course.results.encode(results)
        )
        error = None
        try:
            if name:
                scope: dict[str, Any] = {}
                exec(code, scope)
                ns[name] = scope[name]
            _set_rng(self.state)
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                text = get_ipython().transform_cell(source)
                exec(compile(text, "<delegation probe>", "exec"), ns)
        except (Exception, SystemExit) as exc:
            error = f"{type(exc).__name__}: {str(exc)[:300]}"
        finally:
            course.results.submit = real
            if name:
                ns[name] = saved
        return {"results": sent[0] if len(sent) == 1 else None, "error": error}
