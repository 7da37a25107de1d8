"""What of an answer cell the measured run loads: its definitions, under rules.

The measured run (:mod:`autograder.grading.harness`) must measure the tests where the
answer's code cannot patch the measuring. So of each answer cell it loads
only what *defines* something, and only in forms that run no code when they
are defined:

* ``import``/``from ... import`` of the libraries a lesson uses;
* functions (``def``) and classes whose bodies hold methods and constants;
  default arguments are literals or dotted names (``torch.float32``): a
  lookup, never a call, so defining a function runs none of its code;
* ``NAME = <literal>`` constants and ``NAME = other.name`` aliases.

Other top-level statements (prints, demos, calls) are skipped. Refused, with
a message that names the line: decorators other than numba's ``cuda.jit``;
default arguments that are not literals; ``global``; any access to a private
name (``_x``, ``obj._x``, ``__dict__``...) that the answer did not define
itself; the names ``sys``, ``gc``, ``inspect``, ``ctypes``, ``builtins``,
``globals``, ``vars``, ``eval``, ``exec``... (:data:`REFUSED_NAMES`);
``setattr``/``delattr``; ``getattr`` with a name that is not a plain string;
imports of modules outside :data:`IMPORTABLE`; and redefining a name the
lesson itself defines (a test helper, a dataset), unless the lesson's own
answer cell defines it too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

#: Names an answer may not use at all.
REFUSED_NAMES = frozenset({
    "sys", "gc", "inspect", "ctypes", "builtins", "importlib", "globals", "locals",
    "vars", "eval", "exec", "compile", "breakpoint", "setattr", "delattr",
    "get_ipython", "In", "Out", "threading", "multiprocessing", "signal",
    "subprocess", "asyncio", "concurrent", "operator", "memoryview",
    "socket", "currentframe", "exc_info", "settrace", "setprofile",
    "get_type_hints", "ForwardRef", "seterrcall", "Formatter", "format_map",
})  # fmt: skip
#: What the course's sync and launch counters patch while they count: an alias
#: taken before they do (``item_of = torch.Tensor.item``) would not be counted.
COUNTED = frozenset({
    "item", "cpu", "numpy", "tolist", "get", "asnumpy", "to",
})  # fmt: skip
#: Top-level packages an answer may import.
IMPORTABLE = frozenset({
    "numpy", "torch", "cupy", "cupyx", "numba", "course", "math", "cmath", "os",
    "time", "copy", "functools", "itertools", "collections", "dataclasses",
    "typing", "random", "statistics", "warnings", "sklearn", "scipy", "matplotlib",
    "enum", "abc", "numbers", "fractions", "decimal", "re", "json",
    "textwrap", "heapq", "bisect", "contextlib", "pandas", "pathlib", "__future__",
})  # fmt: skip
#: Special methods an answer may define and use (``super().__init__()``...).
PROTOCOL = frozenset({
    "__init__", "__call__", "__repr__", "__str__", "__len__", "__getitem__",
    "__setitem__", "__iter__", "__next__", "__enter__", "__exit__", "__eq__",
    "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__contains__",
    "__add__", "__sub__", "__mul__", "__truediv__", "__matmul__", "__neg__",
    "__bool__", "__float__", "__int__", "__name__", "__doc__", "__post_init__",
    "__module__", "__qualname__",
})  # fmt: skip
#: Attributes that lead to frames, code and tracebacks (and so to everything).
REFUSED_ATTRS = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await",
    "ag_frame", "ag_code", "f_back", "f_globals", "f_locals", "f_builtins",
    "f_code", "f_trace", "tb_frame", "tb_next", "co_code", "co_consts",
})  # fmt: skip
_JIT = ("cuda.jit", "numba.cuda.jit")


@dataclass
class Definitions:
    """An answer cell's definitions, as loaded, and what was left out and why."""

    source: str = ""
    names: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # messages for the student
    skipped: int = 0  # top-level statements that define nothing


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _literal(node: ast.AST | None) -> bool:
    if node is None:
        return True
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False
    return True


def _plain_alias(node: ast.AST) -> bool:
    """A dotted name that is a module, a class or a constant, not a method taken
    off a class (``torch.Tensor.item``) nor one the counters patch."""
    parts = _dotted(node).split(".")
    if parts[-1] in COUNTED:
        return False
    return not any(p[:1].isupper() for p in parts[1:-1])  # Class.method


def _own(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names, and the attributes of ``self``/``cls``, the answer binds."""
    names: set[str] = set()
    attrs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                attrs.update(n for item in node.body for n in _defined(item))
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            attrs.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names, attrs


def _root(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


class _Checker(ast.NodeVisitor):
    def __init__(self, own: tuple[set[str], set[str]], shared: set[str]) -> None:
        self.names, self.attrs = own
        self.shared = shared  # modules and the lesson's names: not the answer's
        self.problems: list[str] = []
        self.docstrings: set[int] = set()

    def visit_Module(self, node: ast.Module) -> None:
        for owner in ast.walk(node):
            body = getattr(owner, "body", None)
            if (
                isinstance(owner, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                   ast.AsyncFunctionDef))
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
            ):  # fmt: skip
                self.docstrings.add(id(body[0].value))
        self.generic_visit(node)

    def refuse(self, node: ast.AST, what: str) -> None:
        self.problems.append(f"line {getattr(node, 'lineno', '?')}: {what}")

    @staticmethod
    def _private(name: str, own: set[str]) -> bool:
        if name in PROTOCOL:
            return False
        return name.startswith("_") and (name.startswith("__") or name not in own)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in REFUSED_NAMES:
            self.refuse(node, f"`{node.id}` may not be used in an answer")
        elif self._private(node.id, self.names):
            self.refuse(node, f"`{node.id}` is private to the course")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in REFUSED_NAMES:
            self.refuse(node, f"`.{node.attr}` may not be used in an answer")
        elif node.attr in REFUSED_ATTRS or self._private(node.attr, self.attrs):
            self.refuse(node, f"`.{node.attr}` is private: use the public API")
        elif isinstance(node.ctx, (ast.Store, ast.Del)) and _root(node) in self.shared:
            self.refuse(node, f"`{_dotted(node) or node.attr}` belongs to a library "
                        "or the lesson: an answer may not change it")  # fmt: skip
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "getattr":
            name = node.args[1] if len(node.args) > 1 else None
            if not (
                isinstance(name, ast.Constant)
                and isinstance(name.value, str)
                and not self._private(name.value, self.attrs)
                and name.value not in REFUSED_ATTRS | REFUSED_NAMES
            ):
                self.refuse(node, "getattr needs a public attribute name as a string")
        elif isinstance(node.func, ast.Name) and node.func.id == "__import__":
            self.refuse(node, "import modules with an import statement")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        # "{0.__globals__}".format(f), string.Formatter().get_field(...): a
        # private attribute written in a string is still a private attribute
        docstring = id(node) in self.docstrings
        if isinstance(node.value, str) and "__" in node.value and not docstring:
            self.refuse(node, "a string may not name a special attribute (`__`)")

    def visit_arg(self, node: ast.arg) -> None:
        self._annotation(node.annotation)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._annotation(node.annotation)
        self.generic_visit(node)

    def _annotation(self, node: ast.AST | None) -> None:
        # annotations are kept as text; typing.get_type_hints would eval them
        if node is not None and any(
            isinstance(n, ast.Constant) and isinstance(n.value, str)
            for n in ast.walk(node)
        ):
            self.refuse(node, "annotations are names, not strings")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._module(node, node.module or "")
        for alias in node.names:
            if (
                alias.name == "*"
                or self._private(alias.name, set())
                or alias.name in COUNTED | REFUSED_NAMES
            ):
                self.refuse(node, f"`from {node.module} import {alias.name}`: "
                            "import the module and write module.name")  # fmt: skip

    def _module(self, node: ast.AST, name: str) -> None:
        root = name.split(".")[0]
        if root not in IMPORTABLE or any(
            p.startswith("_") for p in name.split(".")[1:]
        ):
            self.refuse(node, f"`{name}` cannot be imported in an answer")

    def visit_Global(self, node: ast.Global) -> None:
        self.refuse(node, "`global` is not allowed: return the value instead")

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            args_ok = not isinstance(decorator, ast.Call) or (
                all(_literal(a) for a in decorator.args)
                and all(_literal(k.value) for k in decorator.keywords)
            )
            if _dotted(target) not in _JIT or not args_ok:
                self.refuse(decorator, "only @cuda.jit may decorate a function here")
        if node.returns is not None:
            self._annotation(node.returns)
        if node.name.startswith("__") and node.name not in PROTOCOL:
            self.refuse(node, f"{node.name} is a special method an answer may not "
                        "define")  # fmt: skip
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if _dotted(default) and not _plain_alias(default):
                self.refuse(default, f"`{_dotted(default)}` as a default: call it "
                            "inside the function instead")  # fmt: skip
            elif not (_literal(default) or _dotted(default)):
                self.refuse(default, f"default arguments of {node.name}() must be "
                            "literals or names such as torch.float32 (use None and "
                            "set the value inside)")  # fmt: skip
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if node.decorator_list or node.keywords:
            self.refuse(node, f"class {node.name}: no decorators or keywords")
        for base in node.bases:
            if not _dotted(base):
                self.refuse(base, f"class {node.name}: bases must be plain names")
        for item in node.body:
            plain = isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass))
            constant = isinstance(item, (ast.Assign, ast.AnnAssign)) and _literal(
                item.value
            )
            docstring = isinstance(item, ast.Expr) and isinstance(
                item.value, ast.Constant
            )
            if not (plain or constant or docstring):
                self.refuse(item, f"class {node.name}: its body may hold only methods "
                            "and literal constants")  # fmt: skip
        self.generic_visit(node)


def import_targets(node: ast.stmt) -> dict[str, str]:
    """``{bound name: what it names}`` of an import (``np`` -> ``numpy``)."""
    if isinstance(node, ast.Import):
        return {
            a.asname or a.name.split(".")[0]: a.name
            if a.asname
            else a.name.split(".")[0]
            for a in node.names
        }
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
    return {}


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, ast.Assign):
        return [
            n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)
        ]
    return []


def definition_only(node: ast.stmt) -> bool:
    """Whether a statement only imports or binds a literal (runs nothing else)."""
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return False
    return isinstance(node, (ast.Import, ast.ImportFrom)) or (
        isinstance(node, ast.Assign)
        and (_literal(node.value) or bool(_dotted(node.value)))
        and all(isinstance(t, ast.Name) for t in node.targets)
    )


def _definition(node: ast.stmt) -> bool:
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return False  # the measured run compiles with postponed annotations
    if isinstance(
        node,
        (
            ast.Import,
            ast.ImportFrom,
            ast.FunctionDef,
            ast.AsyncFunctionDef,
            ast.ClassDef,
        ),
    ):
        return True
    return (
        isinstance(node, ast.Assign)
        and (_literal(node.value) or bool(_dotted(node.value)))
        and all(isinstance(t, ast.Name) for t in node.targets)
    )


def answer_definitions(
    source: str,
    lesson_names: set[str] | frozenset[str] = frozenset(),
    allowed: set[str] | frozenset[str] = frozenset(),
    lesson_imports: dict[str, str] | None = None,
) -> Definitions:
    """The loadable definitions of one answer cell (see the module).

    Args:
        source: the answer cell's Python source (IPython syntax already removed).
        lesson_names: names the lesson's own code defines.
        allowed: of those, the ones this answer cell may (re)define: the names
            the lesson's released version of the cell defines.
        lesson_imports: what the lesson's imports bind; importing the same
            thing under the same name again (``import numpy as np``) is fine.
    """
    lesson_imports = lesson_imports or {}
    found = Definitions()
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        found.refused.append(f"line {exc.lineno}: SyntaxError: {exc.msg}")
        return found
    kept = [node for node in tree.body if _definition(node)]
    found.skipped = len(tree.body) - len(kept)
    module = ast.Module(body=kept, type_ignores=[])
    imported = {
        n for node in kept if isinstance(node, (ast.Import, ast.ImportFrom))
        for n in _defined(node)
    }  # fmt: skip
    checker = _Checker(_own(module), set(lesson_names) | imported)
    checker.visit(module)
    for node in kept:
        same = import_targets(node)
        for name in _defined(node):
            if same.get(name) is not None and same[name] == lesson_imports.get(name):
                continue  # the lesson's own import, again
            if name in lesson_names and name not in allowed:
                checker.refuse(node, f"`{name}` is defined by the lesson; an answer "
                               "must not redefine it (pick another name)")  # fmt: skip
    for node in kept:
        if isinstance(node, ast.Assign) and _dotted(node.value):
            if not _plain_alias(node.value):
                checker.refuse(node, f"`{_dotted(node.value)}` may not be aliased: "
                               "call it where you need it")  # fmt: skip
    found.refused = checker.problems
    if not found.refused:
        found.source = ast.unparse(module)
        found.names = [n for node in kept for n in _defined(node)]
    return found
