"""A test cell's source, as the referee runs it.

:func:`lesson_imports` finds the names the lesson binds by importing;
:func:`compile_test` turns a test's ``assert`` statements into recorded checks
and its imports into imports in the kernel (but those of
:data:`REFEREE_MODULES`, the referee's own); :func:`reads` lists the global
names a test reads, which the referee fetches from the kernel.
"""

from __future__ import annotations

import ast
import symtable
from typing import Any

REFEREE_MODULES = (
    "course.checks",
    "course.results",
    "course.streamfacts",
    "course.streams",
    "numpy.testing",
    "torch.testing",
)
#: Per module, the prefix of the names that are checks (recorded).
_CHECKS = {
    "course.checks": "check_",
    "numpy.testing": "assert_",
    "torch.testing": "assert_",
}
_FUTURE_ANNOTATIONS = 0x1000000


def lesson_imports(cells: list[str]) -> dict[str, tuple[str, str | None]]:
    """Names the lesson's own cells bind by importing, at their top level:
    ``{name: (module, attribute or None)}``. A test reading one gets the
    module's object (the referee's own, for :data:`REFEREE_MODULES`), not
    whatever the notebook's name holds by then."""
    found: dict[str, tuple[str, str | None]] = {}
    for source in cells:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        found[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        found[alias.asname] = (alias.name, None)
                    else:
                        top = alias.name.split(".")[0]
                        found[top] = (top, None)
    return found


class _Rewrite(ast.NodeTransformer):
    """A test's ``assert`` becomes a recorded check; its imports, but those of
    the referee's modules, import in the kernel."""

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        message = node.msg if node.msg is not None else ast.Constant(None)
        no_args = ast.arguments([], [], None, [], [], None, [])
        call = ast.Call(
            ast.Name("_course_assert", ast.Load()),
            [node.test, ast.Lambda(no_args, message)],
            [],
        )
        return ast.copy_location(ast.Expr(call), node)

    def visit_Import(self, node: ast.Import) -> Any:
        if all(a.name in REFEREE_MODULES for a in node.names):
            return node
        out = []
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            wanted = alias.name if alias.asname else alias.name.split(".")[0]
            call = ast.Call(
                ast.Name("_course_import", ast.Load()),
                [ast.Constant(alias.name), ast.Constant(wanted)],
                [],
            )
            out.append(
                ast.copy_location(
                    ast.Assign([ast.Name(bound, ast.Store())], call), node
                )
            )
        return out

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.module in REFEREE_MODULES or node.level or node.module is None:
            return node
        out = []
        for alias in node.names:
            call = ast.Call(
                ast.Name("_course_from", ast.Load()),
                [ast.Constant(node.module), ast.Constant(alias.name)],
                [],
            )
            out.append(
                ast.copy_location(
                    ast.Assign(
                        [ast.Name(alias.asname or alias.name, ast.Store())], call
                    ),
                    node,
                )
            )
        return out


def compile_test(source: str, name: str) -> Any:
    tree = ast.fix_missing_locations(_Rewrite().visit(ast.parse(source, name)))
    return compile(tree, name, "exec", _FUTURE_ANNOTATIONS, dont_inherit=True)


def reads(source: str) -> set[str]:
    """Global names a test reads (not those it binds at its top level first)."""
    import builtins

    try:
        table = symtable.symtable(source, "<test>", "exec")
    except SyntaxError:
        return set()
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
    return found - set(dir(builtins))


__all__ = ["REFEREE_MODULES", "compile_test", "lesson_imports", "reads"]
