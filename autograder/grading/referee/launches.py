"""What a simulated CUDA kernel launch needs to be compiled later, for a real GPU,
and to run on the grader's store.

Grading kernels run numba-cuda's simulator, which runs a kernel as Python and so
accepts what CUDA never would. The agent (:mod:`autograder.grading.referee.agent`)
records each launch a test makes with :func:`launch_record`: the kernel's own
source (a kernel defined inside a function too), the values its source reads
from outside (its closure cells and the notebook's globals, numbers and dtypes
only), the device functions it calls, and the numba signature of the launch.
:func:`compile_source` turns one record into a module that numba-cuda's
compiler can load (:mod:`autograder.grading.cuda_compile`). The same module
is what the store runs (:mod:`course.simkernels`): a test's launch never runs
in the student's process.
"""

from __future__ import annotations

import inspect
import sys
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


def launch_record(kernel: Any, args: tuple) -> list[Any]:
    """``[name, signature, module source]`` of one launch (see the module)."""
    from autograder.grading.cuda_signature import signature_of

    function = kernel.fn
    name = getattr(function, "__name__", "?")
    try:
        signature = signature_of(args)
    except Exception as exc:  # noqa: BLE001 - the compile step reports it
        signature = f"unsupported: {exc}"
    try:
        values, imports, helpers = _outside(function, {id(function)})
    except Exception:  # noqa: BLE001 - an odd function: compiled without them
        values, imports, helpers = {}, [], []
    return [
        name,
        signature,
        compile_source(name, _source(function), values, imports, helpers),
    ]


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


def _store_link() -> Any:
    """The grader's store this kernel was given, if any."""
    import os

    from course.simlink import STORE_FD_ENV, SocketConnection, connection

    if not os.environ.get(STORE_FD_ENV):
        return None
    link = connection()
    return link if isinstance(link, SocketConnection) else None


def watch_launches(found: list[list[Any]]) -> Any:
    """Record each simulated CUDA kernel launch (to compile it after the test)
    and, where the kernel has the grader's store, have the store run it;
    return a function that stops recording."""
    simulated = sys.modules.get("numba.cuda.simulator.kernel")
    if simulated is None:
        return None
    launch = simulated.FakeCUDAKernel.__call__

    store = _store_link()

    def recorded(self: Any, *args: Any) -> Any:
        if not (self._device or simulated._kernel_context):
            record = launch_record(self, args)
            if record not in found:
                found.append(record)
            if store is not None:  # the store runs it (course.simkernels)
                from course.simkernels import launch_on_store

                return launch_on_store(self, args, record[2], store)
        return launch(self, *args)

    simulated.FakeCUDAKernel.__call__ = recorded

    def stop() -> None:
        simulated.FakeCUDAKernel.__call__ = launch

    return stop


__all__ = ["watch_launches", "compile_source", "launch_record"]
