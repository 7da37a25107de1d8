"""The reference solution's functions, loaded in the referee for hidden tests.

A hidden test checks one task. When that task's input is another task's output
(Day 08's ``backward`` takes the cache ``forward`` makes), the test builds the
input with the reference: ``course.results.reference("forward")``, which in the
referee is the function :func:`reference_namespace` loads from the lesson's
solution, in the grader's process. The student's kernel only ever receives the
input, as data.

Only what the answers need is run: every answer cell's definitions, and of the
lesson's other statements the imports, those that bind a name the answers (or
another kept statement) read, and calls that seed a random generator.
Demonstrations, timings and plots are left out.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import io
import os
import symtable
from pathlib import Path
from typing import Any

from autograder.lessons.conventions import is_answer, is_test

_BUILTINS = frozenset(dir(builtins))
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CACHE: dict[tuple[str, int], dict[str, Any]] = {}


def python_source(source: str) -> str:
    """A cell's source with IPython syntax (magics, ``!`` lines) made Python."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - left for the parser to report
        return source


def binds(node: ast.stmt) -> set[str]:
    """Names a statement binds, or may change (``model.eval()`` changes ``model``)."""
    if isinstance(node, _DEFS):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    found: set[str] = set()
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        while isinstance(func, (ast.Attribute, ast.Subscript)):
            func = func.value
        if isinstance(func, ast.Name) and isinstance(node.value.func, ast.Attribute):
            found.add(func.id)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            found.add(sub.id)
        elif isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(
            sub.ctx, (ast.Store, ast.Del)
        ):
            root = sub.value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                found.add(root.id)
    return found


@functools.lru_cache(maxsize=4096)
def reads(source: str) -> frozenset[str]:
    """Global names that code reads (a function's locals are not)."""
    try:
        table = symtable.symtable(source, "<cell>", "exec")
    except SyntaxError:
        return frozenset()
    found: set[str] = set()
    stack = [table]
    while stack:
        scope = stack.pop()
        stack.extend(scope.get_children())
        for symbol in scope.get_symbols():
            if scope.get_type() == "module":
                wanted = symbol.is_referenced() and not symbol.is_assigned()
            else:
                wanted = symbol.is_referenced() and symbol.is_global()
            if wanted:
                found.add(symbol.get_name())
    return frozenset(found - _BUILTINS)


def _seeds(node: ast.stmt) -> bool:
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return "seed" in name


def program(cells: list[tuple[bool, str]]) -> list[str]:
    """The statements to run, in order, for ``(is_answer, source)`` cells."""
    statements: list[tuple[ast.stmt, bool]] = []
    for answer, source in cells:
        try:
            body = ast.parse(python_source(source)).body
        except SyntaxError:
            continue
        statements += [(node, answer) for node in body]
    needed: set[str] = set()
    kept: set[int] = set()
    for k, (node, answer) in enumerate(statements):
        if answer and isinstance(node, _DEFS):
            kept.add(k)
            needed |= reads(ast.unparse(node))
    changed = True
    while changed:
        changed = False
        for k, (node, _) in enumerate(statements):
            if k in kept or isinstance(node, ast.Raise):
                continue
            if (
                isinstance(node, (ast.Import, ast.ImportFrom))
                or _seeds(node)
                or binds(node) & needed
            ):
                kept.add(k)
                needed |= reads(ast.unparse(node))
                changed = True
    return [ast.unparse(statements[k][0]) for k in sorted(kept)]


def reference_namespace(lesson: Any) -> dict[str, Any]:
    """The solution's answers of ``lesson`` (a name or a
    :class:`~autograder.lessons.releases.Release`) and what they need, run
    here once per solution file (see the module).

    Raises:
        RuntimeError: a statement of the solution failed.
    """
    from autograder.grading.kernel.limits import grade_on_the_cpu
    from autograder.lessons import source_to_notebook
    from autograder.lessons.releases import release_of

    source = release_of(lesson).source
    key = (str(Path(source).resolve()), source.stat().st_mtime_ns)
    if key in _CACHE:
        return _CACHE[key]
    nb = source_to_notebook(source)
    cells = [
        (is_answer(c), c.source)
        for c in nb.cells
        if c.get("cell_type") == "code" and not is_test(c)
    ]
    namespace: dict[str, Any] = {"__name__": f"reference_{source.stem}"}
    os.environ.setdefault("MPLBACKEND", "Agg")
    grade_on_the_cpu()  # as the kernels do, whatever this machine has
    with contextlib.redirect_stdout(io.StringIO()):
        for text in program(cells):
            try:
                exec(compile(text, f"<reference {source.stem}>", "exec"), namespace)
            except Exception as exc:
                raise RuntimeError(
                    f"the reference solution of {source.stem} failed at "
                    f"{text.splitlines()[0][:80]!r}: {exc!r}"
                ) from exc
    _CACHE.clear()
    _CACHE[key] = namespace
    return namespace


__all__ = ["binds", "program", "python_source", "reads", "reference_namespace"]
