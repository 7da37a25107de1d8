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
        return f"__import__('numpy').{value.dtype.name}({value.item()!r})"
    if isinstance(value, type) and issubclass(value, np.generic):
        return f"__import__('numpy').{value.__name__}"
    if isinstance(value, np.dtype) and value.kind in "biuf":
        return f"__import__('numpy').dtype({value.str!r})"
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
    lines = ["from numba import cuda", *dict.fromkeys(imports)]
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


__all__ = ["compile_source", "kernel_module"]
