"""The measured run, kernel side: the tests, run where the answer cannot reach them.

A grading kernel runs a submission as it was written, so anything measured in
it (a visible test's asserts, a sync count, a launch count, a race check) could
be forged by the answer's own code. The grader therefore runs every test a
second time, in a fresh confined kernel before the notebook's own cells run
there, through :func:`run`:

1. every unit of the program (:mod:`autograder.grading.measured` builds it: the
   lesson's own statements the tests need, the answer cells' *definitions*
   only, already checked against the rules there, and the test cells) is
   compiled first, before any answer code exists;
2. the check functions (``course.checks``, ``numpy.testing``,
   ``torch.testing``, a test's ``assert``) and ``course.results.submit`` are
   replaced by recorders: each check's outcome and values, and each hidden
   test's results, are kept as data (:func:`course.results.encode`);
3. the units run in order in one namespace; after each, the measuring hooks
   (the recorders, ``course.*``, the tracing and dispatch machinery, builtins)
   are compared with a snapshot taken before any answer code ran. A unit that
   changed them taints the test it belongs to (and, outside a test, every
   later test); the originals are put back;
4. each test's record is published as one output carrying the run's nonce;
5. every hook it set is put back and it binds no name in the kernel's
   namespace, so the notebook's cells then run as in a kernel of their own.

Nothing here decides a grade: the grader compares the records with the
reference's (:mod:`autograder.grading.chain.measured`).
"""

from __future__ import annotations

import ast
import builtins
import json
import signal
import time
import traceback
from typing import Any

from autograder.grading.cuda_signature import signature_of
from autograder.grading.hooks import MISSING, Snapshot
from course.results import MIME, encode

#: Marks a measured record among a cell's outputs.
KIND = "measured"
_FUTURE_ANNOTATIONS = 0x1000000  # __future__.annotations.compiler_flag (3.7+)
_CHECK_MODULES = {
    "course.checks": "check_",
    "numpy.testing": "assert_",
    "torch.testing": "assert_",
}


class UnitTimeout(BaseException):
    """A unit of the measured run ran past its time."""


class _Records:
    """What the tests did: one record per test, filled by the recorders."""

    def __init__(self) -> None:
        self.current: dict[str, Any] | None = None

    def start(self, gid: str) -> dict[str, Any]:
        self.current = {"gid": gid, "checks": [], "results": []}
        return self.current

    def check(self, name: str, ok: bool, **values: Any) -> None:
        if self.current is None:
            return
        entry = {"c": name, "ok": bool(ok)}
        for key, value in values.items():
            try:
                entry[key] = encode(value)
            except Exception:  # noqa: BLE001 - a value that cannot be described
                entry[key] = {"t": "object", "type": "unreadable"}
        self.current["checks"].append(entry)

    def submit(self, results: Any) -> None:
        if self.current is not None:
            self.current["results"].append(encode(results))

    def launch(self, kernel: str, signature: str) -> None:
        if self.current is not None:
            launches = self.current.setdefault("launches", [])
            if [kernel, signature] not in launches:
                launches.append([kernel, signature])


_RECORDS = _Records()


def _as_float_array(value: Any) -> Any:
    import numpy as np

    from course.backend import _as_numpy

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return np.asarray(float(value))
    return np.asarray(_as_numpy(value), dtype=float)


def _values_of(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The values a check is judged on again in the grader."""

    def arg(i: int, key: str, default: Any = None) -> Any:
        return args[i] if len(args) > i else kwargs.get(key, default)

    if name == "check_equal":
        return {"actual": arg(0, "actual"), "expected": arg(1, "expected")}
    if name == "check_close":
        return {
            "actual": _as_float_array(arg(0, "actual")),
            "expected": _as_float_array(arg(1, "expected")),
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


def _recorder(name: str, original: Any) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        try:
            result = original(*args, **kwargs)
        except AssertionError:
            _RECORDS.check(name, False)
            raise
        try:
            values = _values_of(name, args, kwargs)
        except Exception:  # noqa: BLE001 - the check passed; its values are odd
            values = {}
        _RECORDS.check(name, True, **values)
        return result

    recorded.__name__ = recorded.__qualname__ = name
    recorded.__doc__ = getattr(original, "__doc__", None)
    recorded.__wrapped__ = original
    return recorded


def _assert(condition: Any, message: Any) -> None:
    """What a test's ``assert`` statement becomes in the measured run."""
    ok = bool(condition)
    _RECORDS.check("assert", ok)
    if not ok:
        text = message()
        raise AssertionError(text) if text is not None else AssertionError


class _Asserts(ast.NodeTransformer):
    """``assert c, m`` -> ``_course_assert(c, lambda: m)`` (the tests' own code)."""

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        message = node.msg if node.msg is not None else ast.Constant(None)
        no_args = ast.arguments([], [], None, [], [], None, [])
        call = ast.Call(
            func=ast.Name("_course_assert", ast.Load()),
            args=[node.test, ast.Lambda(no_args, message)],
            keywords=[],
        )
        return ast.copy_location(ast.Expr(call), node)


def _compile(unit: dict[str, Any]) -> Any:
    tree = ast.parse(unit["source"], filename=unit["name"])
    if unit["kind"] == "test":
        tree = ast.fix_missing_locations(_Asserts().visit(tree))
    return compile(tree, unit["name"], "exec", _FUTURE_ANNOTATIONS, dont_inherit=True)


def _install_recorders() -> None:
    import importlib

    import course.results

    for module_name, prefix in _CHECK_MODULES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for attr in dir(module):
            value = getattr(module, attr)
            if attr.startswith(prefix) and callable(value):
                setattr(module, attr, _recorder(attr, value))

    def submit(results: Any, grade_id: Any = None) -> None:
        if not isinstance(results, dict):
            raise TypeError(
                "submit() takes a dict of results, keyed by what was tested"
            )
        _RECORDS.submit(results)

    course.results.submit = submit


def _watch_launches() -> None:
    """Record each simulated kernel launch's Python types (to compile it later)."""
    try:
        from numba.cuda.simulator import kernel as simulated
    except ImportError:  # numba-cuda absent, or not the simulator
        return
    launch = simulated.FakeCUDAKernel.__call__

    def recorded(self: Any, *args: Any) -> Any:
        if not (self._device or simulated._kernel_context):
            try:
                signature = signature_of(args)
            except Exception as exc:  # noqa: BLE001 - the compile step reports it
                signature = f"unsupported: {exc}"
            _RECORDS.launch(getattr(self.fn, "__name__", "?"), signature)
        return launch(self, *args)

    simulated.FakeCUDAKernel.__call__ = recorded


def _bound(tree: ast.AST) -> set[str]:
    """Names a unit binds at its top level (and, loosely, anywhere in it)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


def _timeout(signum: int, frame: Any) -> None:
    raise UnitTimeout


def _message(exc: BaseException) -> str:
    if isinstance(exc, UnitTimeout):
        return "TimeoutError: it ran past the time a test may take"
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return text[:2000] or type(exc).__name__


def run(program_text: str) -> None:
    """Run a measured program (JSON, :mod:`autograder.grading.measured`); publish
    records."""
    from IPython.display import publish_display_data

    program = json.loads(program_text)
    nonce, limit = program["nonce"], float(program.get("timeout") or 0)
    units = []
    for unit in program["units"]:
        try:
            bound = _bound(ast.parse(unit["source"]))
            units.append((unit, _compile(unit), None, bound))
        except SyntaxError as exc:
            units.append((unit, None, _message(exc), set()))
    clean = Snapshot()  # the hooks as the kernel had them: put back at the end
    handler = signal.getsignal(signal.SIGALRM)
    _install_recorders()
    _watch_launches()
    try:
        _run_units(units, nonce, limit, publish_display_data)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, handler)
        clean.restore()  # the notebook's own cells may run next, in this kernel


def _run_units(units: list, nonce: str, limit: float, publish: Any) -> None:
    """Run the units in order in one namespace; publish each test's record."""
    snapshot = Snapshot()
    namespace: dict[str, Any] = {
        "__name__": "__main__",
        "__builtins__": builtins,
        "_course_assert": _assert,
    }
    tainted: list[str] = []
    # The names the lesson bound (its checks, helpers, data): a unit that does
    # not bind a name itself must leave it as it was.
    lessons = {"_course_assert": _assert}
    signal.signal(signal.SIGALRM, _timeout)
    for unit, code, problem, bound in units:
        record = _RECORDS.start(unit["gid"]) if unit["kind"] == "test" else None
        start = time.perf_counter()
        error = problem
        if code is not None:
            try:
                if limit:
                    signal.setitimer(signal.ITIMER_REAL, limit)
                exec(code, namespace)  # noqa: S102 - the measured program
            except BaseException as exc:  # noqa: BLE001 - recorded for the grader
                error = _message(exc)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        changed = snapshot.changes()
        if unit["kind"] in ("lesson", "answer"):  # the answer's: under the rules
            lessons.update({n: namespace[n] for n in bound if n in namespace})
        else:
            for name, value in lessons.items():
                if name not in bound and namespace.get(name, MISSING) is not value:
                    changed.append(f"the lesson's {name}")
                    namespace[name] = value
        if changed:
            snapshot.restore()
            what = f"{unit['name']} changed {', '.join(sorted(set(changed))[:5])}"
            if record is None:
                tainted.append(what)
            else:
                record["tampered"] = what
        if record is None:
            continue
        _RECORDS.current = None
        record["error"] = error
        record["seconds"] = round(time.perf_counter() - start, 4)
        if tainted and "tampered" not in record:
            record["tampered"] = tainted[0]
        payload = {"kind": KIND, "nonce": nonce, "record": record}
        publish({MIME: payload, "text/plain": f"<measured {unit['gid']}>"})


def source(program: dict[str, Any]) -> str:
    """The cell a grading kernel runs first: it binds no name of its own there."""
    text = json.dumps(json.dumps(program))
    return (
        "__import__('autograder.grading.guard').grading.guard.install()\n"
        f"__import__('autograder.grading.harness').grading.harness.run({text})\n"
    )
