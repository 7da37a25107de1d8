"""A numba-cuda kernel as a module of its own: its source, and what it reads.

The kernel's own source (a kernel defined inside a function too), the values
its source reads from outside (its closure cells and its module's globals:
numbers, strings and dtypes only), the modules it names and the device
functions it calls, as one module that defines the kernel as it was launched.
The grader compiles that module for a GPU, and the simulated GPU's store runs
it (:mod:`course.simkernels`): what runs is what must compile.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

#: Modules a kernel's source may name, and how the compiled module imports them.
_MODULES = {
    "numba.cuda": "from numba import cuda as {name}",
    "math": "import math as {name}",
    "numpy": "import numpy as {name}",
    "numba": "import numba as {name}",
}
_MAX_HELPERS = 16


def _plain(value: Any) -> str | None:
    """Python source for a number, bool, string or dtype; None for anything else."""
    if type(value) in (int, float, bool) or value is None:
        return repr(value)
    if type(value) is str and len(value) < 200:
        return repr(value)
    import numpy as np

    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return f"_numpy_.{value.dtype.name}({value.item()!r})"
    if isinstance(value, type) and issubclass(value, np.generic):
        return f"_numpy_.{value.__name__}"
    if isinstance(value, np.dtype) and value.kind in "biuf":
        return f"_numpy_.dtype({value.str!r})"
    if type(value) is tuple and len(value) < 16:
        parts = [_plain(v) for v in value]
        if all(p is not None for p in parts):
            return "(" + "".join(f"{p}, " for p in parts) + ")"
    return None


def _source(function: Any) -> str:
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return ""


def _outside(
    function: Any, seen: set[int]
) -> tuple[dict[str, str], list[str], list[str]]:
    """Values, imports and device-function sources the function reads from outside."""
    code = function.__code__
    values: dict[str, str] = {}
    imports: list[str] = []
    helpers: list[str] = []
    cells = function.__closure__ or ()
    outside = dict(zip(code.co_freevars, cells))
    names = {n: None for n in (*code.co_names, *code.co_freevars)}
    for name in names:
        if name in outside:
            try:
                value = outside[name].cell_contents
            except ValueError:
                continue
        elif name in function.__globals__:
            value = function.__globals__[name]
        else:
            continue
        module = getattr(value, "__name__", None) if inspect.ismodule(value) else None
        if module in _MODULES:
            imports.append(_MODULES[module].format(name=name))
            continue
        py_func = getattr(value, "py_func", None)
        if py_func is not None and id(py_func) not in seen and len(seen) < _MAX_HELPERS:
            seen.add(id(py_func))
            inner_values, inner_imports, inner_helpers = _outside(py_func, seen)
            values.update(inner_values)
            imports += inner_imports
            helpers += [*inner_helpers, _source(py_func)]
            continue
        text = _plain(value)
        if text is not None:
            values[name] = text
    return values, imports, helpers


def compile_source(
    name: str,
    source: str,
    values: dict[str, str],
    imports: list[str],
    helpers: list[str],
) -> str:
    """A module that defines kernel ``name`` as it was launched."""
    lines = ["from numba import cuda", "import numpy as _numpy_"]
    lines += list(dict.fromkeys(imports))
    lines += [f"{key} = {text}" for key, text in values.items()]
    lines += [*dict.fromkeys(helpers), source]
    return "\n".join(lines) + "\n"


def kernel_module(kernel: Any) -> str:
    """The module (see above) of a ``@cuda.jit`` kernel (its ``py_func`` or,
    in numba's simulator, its ``fn``)."""
    function = getattr(kernel, "py_func", None) or getattr(kernel, "fn", kernel)
    name = getattr(function, "__name__", "?")
    try:
        values, imports, helpers = _outside(function, {id(function)})
    except Exception:  # noqa: BLE001 - an odd function: its source alone
        values, imports, helpers = {}, [], []
    return compile_source(name, _source(function), values, imports, helpers)


#: Builtins a kernel never calls; through them Python reaches everything.
_REFUSED_CALLS = frozenset(
    "exec eval compile getattr setattr delattr globals locals vars open input "
    "breakpoint type super object memoryview dir help classmethod staticmethod "
    "property".split()
)
#: Attributes of a module a kernel names that lead out of the kernel's world.
_REFUSED_ATTRIBUTES = frozenset(
    "os sys subprocess builtins importlib simulator kernelapi kernel racecheck "
    "config core lib ctypes io shutil pathlib socket signal threading "
    "testing".split()
)
_MODULE_ROOTS = ("numba", "numba.cuda", "math", "numpy")


def refuse_unsafe(source: str) -> None:
    """Refuse a kernel module (:func:`compile_source`) that does what no CUDA
    kernel does: import other modules, run code at module level other than
    constants and ``@cuda.jit`` definitions, call ``exec``-like builtins, name
    a dunder, assign an attribute, or reach through a module into Python's
    own (``np.lib.npyio.os``).

    Raises:
        TypeError: saying what the kernel does and what CUDA allows.
    """
    import ast

    def refuse(node: ast.AST, what: str) -> None:
        line = getattr(node, "lineno", "?")
        raise TypeError(
            f"the kernel's code {what} (line {line} of its module), which a CUDA "
            "kernel cannot: inside kernels use indexing, arithmetic, math "
            "functions and cuda.* calls"
        )

    tree = ast.parse(source)
    modules = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            base = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                if full not in _MODULE_ROOTS:
                    refuse(node, f"imports {full}")
                modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = (
                    decorator.func if isinstance(decorator, ast.Call) else decorator
                )
                if not (isinstance(target, ast.Attribute) and target.attr == "jit"):
                    refuse(decorator, "decorates a function with other than cuda.jit")
        elif isinstance(node, ast.Assign):  # a value the kernel reads
            for part in ast.walk(node.value):
                if isinstance(part, ast.Call) and not (
                    isinstance(part.func, ast.Attribute)
                    and isinstance(part.func.value, ast.Name)
                    and part.func.value.id == "_numpy_"
                ):
                    refuse(part, "calls a function at the top level")
        else:
            refuse(node, f"runs a {type(node).__name__} at the top level")
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else None
        attr = node.attr if isinstance(node, ast.Attribute) else None
        if any(n and n.startswith("__") for n in (name, attr)):
            refuse(node, f"names {name or attr}")
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            refuse(node, f"assigns the attribute {node.attr}")
        if isinstance(node, ast.Attribute) and node.attr in _REFUSED_ATTRIBUTES:
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in modules:
                refuse(node, f"reaches {node.attr} through a module")
        if isinstance(node, (ast.Lambda, ast.ClassDef, ast.Global, ast.Nonlocal)):
            refuse(node, f"uses {type(node).__name__.lower()}")
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node not in tree.body:
            refuse(node, "imports inside a function")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _REFUSED_CALLS
        ):
            refuse(node, f"calls {node.func.id}")


__all__ = ["compile_source", "kernel_module", "refuse_unsafe"]
