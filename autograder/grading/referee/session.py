"""Run one test cell in the referee, against the objects of the student's kernel.

:class:`Referee` runs each test cell of a notebook as it comes (the grading
client calls :meth:`Referee.run` when nbclient reaches the cell, which the
kernel itself skips). The test's code runs here, in the grader's process:

* a name the test reads comes from the kernel's namespace, as a copy or a
  :class:`~autograder.grading.referee.proxy.Proxy`, fresh for every test;
* the check functions (``course.checks``, ``numpy.testing``, ``torch.testing``)
  and ``course.results`` are the referee's own, whatever the notebook bound to
  their names: each check is recorded with the values it judged, as data,
  copied from the kernel; ``submit`` records a hidden test's results;
  ``course.results.reference(name)`` is the reference solution's function;
* an ``import`` in a test imports in the kernel (the module is the notebook's),
  except :data:`REFEREE_MODULES` (those, and ``course.streams``, whose
  ``read_streams`` reads a counter's timeline as data), imported here;
* ``SyncCounter`` and ``gpumodel.trace`` are the referee's
  (:mod:`~autograder.grading.referee.counters`), and so are
  ``TransferCounter`` and ``checked`` where the kernel has a simulated GPU:
  those counts are read from the store, not the kernel;
* ``assert`` statements are recorded as checks.

A test's record (its checks, its results, its error, and the kernels the
simulated GPU's store ran for it, read from the store: what is compiled) is
compared with the reference's by the verdict
(:func:`autograder.grading.chain.verdict.judge`). Nothing of a test (its
source, its expected values, its labels) is sent to the kernel: only the
requests its code makes of the student's objects.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import time
import traceback
from typing import Any

from autograder.grading.referee.counters import (
    COUNTER_MODULES,
    COUNTERS,
    ModuleView,
    counter_for,
)
from autograder.grading.referee.link import KernelGone, Link, TestTimeout
from autograder.grading.referee.proxy import Proxy, value_of
from autograder.grading.referee.source import (
    _CHECKS,
    REFEREE_MODULES,
    compile_test,
    lesson_imports,
    reads,
)


#: Modules whose functions check or report a test: always the referee's own.
class _Record:
    """What one test did: its checks, its results, its error."""

    def __init__(self, gid: str) -> None:
        self.data: dict[str, Any] = {"gid": gid, "checks": [], "results": []}

    def check(self, name: str, ok: bool, **values: Any) -> None:
        from course.results import encode

        entry: dict[str, Any] = {"c": name, "ok": bool(ok)}
        for key, value in values.items():
            try:
                entry[key] = encode(value)
            except Exception:  # noqa: BLE001 - a value that cannot be described
                entry[key] = {"t": "object", "type": "unreadable"}
        self.data["checks"].append(entry)


class Referee:
    """The tests of one notebook, run against one kernel (see the module)."""

    def __init__(
        self,
        link: Link,
        names: dict[str, tuple[str, str | None]],  # from lesson_imports
        reference: Any = None,
    ) -> None:
        self.link = link
        self.names = names  # the lesson's names for the referee's modules
        self.reference = reference  # name -> the reference solution's function
        self.namespace: dict[str, Any] = {"__name__": "__main__"}
        self.session = 0
        self._record: _Record | None = None

    def run(self, gid: str, source: str, timeout: float) -> dict[str, Any]:
        """Run test ``gid`` (its full source); return its record."""
        self.session += 1
        record = _Record(gid)
        self._record = record
        started = time.perf_counter()
        error = None
        output = io.StringIO()
        try:
            code = compile_test(source, f"<test {gid}>")
        except SyntaxError as exc:
            code, error = None, _message(exc)
        mark, lost = _store_mark(self.link.store)
        if lost and code is not None:
            code, error = None, lost
        if code is not None:
            try:
                self.link.begin(self.session, time.monotonic() + timeout)
            except KernelGone as exc:
                code, error = None, f"this test could not run: {exc}"
        if code is not None:
            with _patched(self), contextlib.redirect_stdout(output):
                try:
                    self._bind(source)
                    exec(code, self.namespace)  # noqa: S102 - the lesson's test
                except BaseException as exc:  # noqa: BLE001 - the test's outcome
                    error = _message(exc, timeout)
            try:
                self.link.end()
            except (KernelGone, TestTimeout, Exception) as exc:  # noqa: BLE001
                error = error or f"the kernel did not finish the test: {exc}"
        if mark is not None:  # the kernels the store ran: what is compiled
            try:
                record.data["launches"] = self.link.store.request(["launched", mark])
            except Exception as exc:  # noqa: BLE001 - the store ended with the kernel
                error = error or f"the simulated GPU did not answer: {exc}"
        record.data["error"] = error
        record.data["seconds"] = round(time.perf_counter() - started, 4)
        record.data["output"] = output.getvalue()[-2000:]
        self._record = None
        return record.data

    def _bind(self, source: str) -> None:
        """Bind the names the test reads: the referee's modules' names here,
        the lesson's other imports as the kernel imports them, every other
        name from the kernel's namespace, as it is now."""
        wanted = sorted(reads(source))
        imported = [
            n
            for n in wanted
            if n in self.names and self.names[n][0] not in REFEREE_MODULES
        ]
        remote = [n for n in wanted if n not in self.names]
        counted = [n for n in imported if self._counter(*self.names[n]) is not None]
        imported = [n for n in imported if n not in counted]
        for name in counted:
            self.namespace[name] = self._counter(*self.names[name])
        for name in wanted:
            if name in self.names and self.names[name][0] in REFEREE_MODULES:
                module, attr = self.names[name]
                found = importlib.import_module(module)
                self.namespace[name] = getattr(found, attr) if attr else found
        if remote or imported:
            paths = [list(self.names[n]) for n in imported]
            values = self.link.request(["q", "get", remote, paths])
            for name, value in zip(remote + imported, values):
                if type(value).__name__ != "_Missing":
                    self.namespace[name] = self._viewed(name, value)
        self.namespace.update(
            _course_assert=self._assert,
            _course_import=self._import,
            _course_from=self._from,
        )

    def _viewed(self, name: str, value: Any) -> Any:
        """A lesson's module whose counters are the referee's (``gpumodel``,
        for ``gpumodel.trace``): the kernel's module with those in front."""
        module, attr = self.names.get(name, ("", None))
        full = f"{module}.{attr}" if attr else module
        if full not in COUNTER_MODULES:
            return value
        return ModuleView(value, {"trace": counter_for("trace", self.link)})

    def _import(self, module: str, bound: str) -> Any:
        found = self.link.call("import", module)
        return found if module == bound else self.link.call("import", bound)

    def _counter(self, module: str, name: str | None) -> Any:
        """The referee's counter class for ``module.name``, if the kernel has a
        store (:mod:`autograder.grading.referee.counters`)."""
        kind = COUNTERS.get((module, name or ""))
        if kind is None or (
            kind in ("transfer", "kernels") and self.link.store is None
        ):
            return None
        return counter_for(kind, self.link)

    def _from(self, module: str, name: str) -> Any:
        counter = self._counter(module, name)
        if counter is not None:
            return counter
        found = self.link.call("import", module)
        try:
            return self.link.call("getattr", found, name)
        except AttributeError:
            return self.link.call("import", f"{module}.{name}")

    def _assert(self, condition: Any, message: Any) -> None:
        ok = bool(value_of(condition))
        if self._record is not None:
            self._record.check("assert", ok)
        if not ok:
            text = message()
            raise AssertionError(text) if text is not None else AssertionError

    # The referee's versions of the checks.
    def recorder(self, name: str, original: Any) -> Any:
        referee = self

        def recorded(*args: Any, **kwargs: Any) -> Any:
            args = tuple(value_of_deep(referee.link, a) for a in args)
            kwargs = {k: value_of_deep(referee.link, v) for k, v in kwargs.items()}
            try:
                if name == "check_type" and args and type(args[0]) is Proxy:
                    result = referee._check_type(*args, **kwargs)
                else:
                    result = original(*args, **kwargs)
            except AssertionError:
                if referee._record is not None:
                    referee._record.check(name, False)
                raise
            if referee._record is not None:
                try:
                    values = _values_of(name, args, kwargs)
                except Exception:  # noqa: BLE001 - the check passed; odd values
                    values = {}
                referee._record.check(name, True, **values)
            return result

        recorded.__name__ = recorded.__qualname__ = name
        recorded.__wrapped__ = original
        return recorded

    def _check_type(self, value: Proxy, expected: Any, name: str = "value") -> None:
        kinds = expected if isinstance(expected, tuple) else (expected,)
        if any(self.link.call("isinstance", value, k) for k in kinds):
            return
        module, qualname = object.__getattribute__(value, "_course_type")[:2]
        wanted = " or ".join(getattr(k, "__qualname__", str(k)) for k in kinds)
        raise AssertionError(
            f"{name} should be a {wanted}, but it is a {module}.{qualname}. Check what "
            "your code returns."
        )

    def reference_function(self, name: str) -> Any:
        """``course.results.reference(name)``: the reference solution's function,
        run here on the data of its arguments (a value of the kernel's is
        copied first, never handed to the reference as an object)."""
        if self.reference is None:
            raise NameError("no reference solution is known for this notebook")
        function = self.reference(name)
        link = self.link

        def on_data(*args: Any, **kwargs: Any) -> Any:
            args = tuple(value_of_deep(link, a) for a in args)
            kwargs = {k: value_of_deep(link, v) for k, v in kwargs.items()}
            return function(*args, **kwargs)

        on_data.__name__ = on_data.__qualname__ = name
        return on_data

    def submit(self, results: Any, grade_id: Any = None) -> None:
        from course.results import encode

        if not isinstance(results, dict):
            raise TypeError(
                "submit() takes a dict of results, keyed by what was tested"
            )
        if self._record is not None:
            self._record.data["results"].append(encode(results))


def _store_mark(store: Any) -> tuple[int | None, str | None]:
    """Where the store's record stands as a test begins (None: no store), or
    why the test cannot run: a store that does not answer records nothing."""
    if store is None:
        return None, None
    try:
        return int(store.request(["mark"])), None
    except Exception as exc:  # noqa: BLE001 - the store ended with the kernel
        return (
            None,
            f"this test could not run: the simulated GPU did not answer ({exc})",
        )


def value_of_deep(link: Link, value: Any) -> Any:
    """A check's argument as data (proxies inside lists and dicts too)."""
    if type(value) is Proxy or type(value) in (list, tuple, dict, set, frozenset):
        return link.materialize(value)
    return value


def _values_of(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The values a check is judged on again in the grader."""
    import numpy as np

    from course.backend import as_numpy

    def arg(i: int, key: str, default: Any = None) -> Any:
        return args[i] if len(args) > i else kwargs.get(key, default)

    def floats(value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return np.asarray(float(value))
        return np.asarray(as_numpy(value), dtype=float)

    if name == "check_equal":
        return {"actual": arg(0, "actual"), "expected": arg(1, "expected")}
    if name == "check_close":
        return {
            "actual": floats(arg(0, "actual")),
            "expected": floats(arg(1, "expected")),
            "rtol": float(kwargs.get("rtol", 1e-5)),
            "atol": float(kwargs.get("atol", 1e-8)),
        }
    if name == "check_shape":
        shape = getattr(arg(0, "value"), "shape", None)
        return {
            "actual": None if shape is None else [int(d) for d in shape],
            "expected": [int(d) for d in arg(1, "shape", ())],
        }
    return {}


@contextlib.contextmanager
def _patched(referee: Referee) -> Any:
    """The referee's recorders in place of the check functions, ``submit`` and
    ``reference``, in this process, while one test runs."""
    import course.results

    saved: list[tuple[Any, str, Any]] = []
    for module_name, prefix in _CHECKS.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for attr in list(vars(module)):
            value = getattr(module, attr)
            if attr.startswith(prefix) and callable(value):
                saved.append((module, attr, value))
                setattr(module, attr, referee.recorder(attr, value))
    for attr, value in (
        ("submit", referee.submit),
        ("_reference_lookup", referee.reference_function),
    ):
        saved.append((course.results, attr, getattr(course.results, attr, None)))
        setattr(course.results, attr, value)
    try:
        yield
    finally:
        for module, attr, value in reversed(saved):
            setattr(module, attr, value)


def _message(exc: BaseException, timeout: float | None = None) -> str:
    if isinstance(exc, TestTimeout):
        limit = "the time" if timeout is None else f"the {timeout:g} s"
        return (
            f"TimeoutError: it ran past {limit} a test may take: look for a "
            "loop that never ends, or work far larger than the task asks"
        )
    if isinstance(exc, KernelGone):
        return f"KernelDied: {exc}"
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    where = getattr(exc, "_course_traceback", "")
    if where:  # the code of the frames, not the kernel's temporary file names
        frames = [
            ln
            for ln in where.strip().splitlines()
            if ln.strip() and not ln.lstrip().startswith(("File ", "Traceback"))
        ]
        text += "\n" + "\n".join(frames[-5:-1])
    return text[:2000] or type(exc).__name__


__all__ = ["REFEREE_MODULES", "Referee", "compile_test", "lesson_imports", "reads"]
