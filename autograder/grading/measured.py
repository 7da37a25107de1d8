"""The measured program: what a measured kernel runs for one notebook.

:func:`build` turns a notebook being graded (the released notebook with the
student's answer cells in it) into units for :func:`autograder.grading.harness.run`:

* every **test cell**, as the lesson wrote it (the release's, never the
  student's);
* every **answer cell**'s definitions, under :mod:`autograder.grading.answer_rules`;
* the **lesson's own statements** that the tests need: of every other code
  cell, and of the released version of each answer cell (the lines around the
  student's part), the imports, and each statement that binds (or mutates) a
  name the tests, the answers or another kept statement read, plus calls that
  seed a random generator. Demonstrations, timings and plots are left out, so
  the measured run costs little more than the tests themselves.

The reference is measured the same way on the lesson's solution
(:mod:`autograder.grading.reference`), so both sides run the same program.
"""

from __future__ import annotations

import ast
import builtins
import functools
from dataclasses import dataclass, field
from typing import Any

from autograder.grading.answer_rules import answer_definitions, import_targets
from autograder.lessons.conventions import grade_id, is_answer, is_test

_BUILTINS = frozenset(dir(builtins))


@dataclass
class Program:
    """The units of a measured run, and what the answer rules refused."""

    units: list[dict[str, Any]] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)  # by answer grade_id
    tests: list[str] = field(default_factory=list)
    answer_names: list[str] = field(default_factory=list)  # what the answers define

    def to_json(self, nonce: str, timeout: float) -> dict[str, Any]:
        return {"nonce": nonce, "timeout": timeout, "units": self.units}


@functools.lru_cache(maxsize=4096)
def python_source(source: str) -> str:
    """A cell's source with IPython syntax (magics, ``!`` lines) made Python.

    Cached by text: a class's notebooks share most cells (the lesson's, the
    tests), and a worker grades many of them."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - left for the parser to report
        return source


@functools.lru_cache(maxsize=4096)
def _parse(source: str) -> tuple[ast.stmt, ...]:
    """A cell's statements (cached by text: callers only read them)."""
    try:
        return tuple(ast.parse(python_source(source)).body)
    except SyntaxError:
        return ()


@functools.lru_cache(maxsize=8192)
def binds(node: ast.stmt) -> frozenset[str]:
    """Names a lesson statement binds or may mutate (cached by node, as
    :func:`_unparse`)."""
    found: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return frozenset({node.name})
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return frozenset((a.asname or a.name).split(".")[0] for a in node.names)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func  # model.eval(), data.fill_(0): may change `model`
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
    return frozenset(found)


def reads(node: ast.AST) -> set[str]:
    """Global names that code reads (a function's locals and arguments are not)."""
    return set(_reads(node if isinstance(node, str) else _unparse(node)))


@functools.lru_cache(maxsize=8192)
def _unparse(node: ast.AST) -> str:
    """``ast.unparse``, cached by node: :func:`_parse`'s nodes recur in every
    notebook of a lesson."""
    return ast.unparse(node)


@functools.lru_cache(maxsize=8192)
def _reads(source: str) -> frozenset[str]:
    import symtable

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
                # a name the code binds itself is taken as its own (a test's
                # `syncs`, a loop's `run`), not the lesson's
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


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Statement:
    index: int  # cell position
    node: ast.stmt
    name: str
    after: bool = False  # in an answer cell, after its first definition


def _lesson_statements(cell: Any, released: Any | None) -> list[tuple[ast.stmt, bool]]:
    """The lesson's statements in a cell; for an answer cell, those of the
    released version around the student's part (stubs and raises left out)."""
    if not is_answer(cell):
        return [(n, False) for n in _parse(cell.source)]
    if released is None:
        return []
    body = _parse(released.source)
    first = next((n.lineno for n in body if isinstance(n, _DEFS)), None)
    return [
        (n, first is not None and n.lineno > first)
        for n in body
        if not isinstance(n, (*_DEFS, ast.Raise))
    ]


def build(nb: Any, release: Any) -> Program:
    """The measured program of ``nb``; ``release`` is the lesson's student edition."""
    released = {grade_id(c): c for c in release.cells if grade_id(c)}
    code = [c for c in nb.cells if c.get("cell_type") == "code"]
    lesson: list[_Statement] = []
    answers: dict[int, tuple[str, Any]] = {}
    from autograder.grading.guard import install_source, restore_source

    guards = {install_source().strip(), restore_source().strip()}
    code = [c for c in code if c.source.strip() not in guards]  # the kernel's own
    for index, cell in enumerate(code):
        gid = grade_id(cell) or cell.get("id") or str(index)
        if is_test(cell):
            continue
        for node, after in _lesson_statements(cell, released.get(gid)):
            name = f"<lesson cell {gid}, line {node.lineno}>"
            lesson.append(_Statement(index, node, name, after))
        if is_answer(cell):
            answers[index] = (gid, cell)
    lesson_names = {n for s in lesson for n in binds(s.node)}
    lesson_imports: dict[str, str] = {}
    for statement in lesson:
        lesson_imports.update(import_targets(statement.node))
    program = Program()
    defined: dict[int, Any] = {}
    for index, (gid, cell) in answers.items():
        release_source = getattr(released.get(gid), "source", "")
        allowed = {n for node in _parse(release_source) for n in binds(node)}
        found = answer_definitions(
            python_source(cell.source), lesson_names, allowed, lesson_imports
        )
        defined[index] = found
        if found.refused:
            program.refused[gid] = found.refused
        program.answer_names += found.names
    needed = set()
    for cell in code:
        if is_test(cell):
            needed |= reads(python_source(cell.source))
    for found in defined.values():
        if found.source:
            needed |= reads(found.source)
    kept: set[int] = set()
    changed = True
    while changed:
        changed = False
        for k, statement in enumerate(lesson):
            node = statement.node
            if k in kept:
                continue
            if (
                isinstance(node, (ast.Import, ast.ImportFrom))
                or _seeds(node)
                or binds(node) & needed
            ):
                kept.add(k)
                needed |= reads(node)
                changed = True

    def lesson_units(index: int, after: bool) -> None:
        for k, statement in enumerate(lesson):
            if statement.index == index and statement.after == after and k in kept:
                program.units.append(
                    {
                        "kind": "lesson",
                        "gid": None,
                        "name": statement.name,
                        "source": _unparse(statement.node),
                    }
                )

    for index, cell in enumerate(code):
        lesson_units(index, after=False)
        if index in defined and defined[index].source:
            gid = answers[index][0]
            program.units.append(
                {
                    "kind": "answer",
                    "gid": gid,
                    "name": f"<your answer {gid}>",
                    "source": defined[index].source,
                }
            )
        lesson_units(index, after=True)
        if is_test(cell):
            gid = grade_id(cell)
            program.tests.append(gid)
            program.units.append(
                {
                    "kind": "test",
                    "gid": gid,
                    "name": f"<test {gid}>",
                    "source": python_source(cell.source),
                }
            )
    return program
