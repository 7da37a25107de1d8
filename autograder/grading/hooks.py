"""The measuring hooks of the measured run, and a snapshot to see them change.

:class:`Snapshot` records, before any answer code runs, the identity of every
attribute of the watched modules and classes (the recorders, ``course.*``, the
sync counter, the launch tracer, torch's dispatch machinery, builtins...) and
interpreter-wide state (trace and profile hooks, import hooks, torch's mode
stacks and global module hooks, NumPy's error callback). :meth:`changes` names
what differs now; :meth:`restore` puts back what it can. Used by
:mod:`autograder.grading.harness`.
"""

from __future__ import annotations

import sys
import types
from typing import Any

#: Modules and classes whose attributes must be the same after every unit.
_WATCHED_MODULES = (
    "builtins", "course.checks", "course.results", "course.sync", "course.gpumodel",
    "course.cudasim", "course.racecheck", "course.simulate", "course.fakecupy",
    "course.backend", "course.devices", "numpy.testing", "torch.testing",
    "autograder.grading.harness", "autograder.grading.guard",
    "torch.utils._python_dispatch", "time",
    "IPython.display", "IPython.core.display_functions",
)  # fmt: skip
_WATCHED_CLASSES = (
    ("torch", "Tensor"), ("torch.nn", "Module"), ("torch.optim", "Optimizer"),
    ("course.sync", "SyncCounter"), ("course.gpumodel", "Trace"),
    ("torch.utils._python_dispatch", "TorchDispatchMode"),
    ("numba.cuda.simulator.kernel", "FakeCUDAKernel"),
)  # fmt: skip
STRICT = ("course.", "autograder.")  # added attributes count there too
IGNORED = frozenset({"__warningregistry__"})  # the warnings module's own notes


def _owners() -> list[tuple[str, Any]]:
    found = []
    for name in _WATCHED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            found.append((name, module))
    for module_name, attr in _WATCHED_CLASSES:
        owner = getattr(sys.modules.get(module_name), attr, None)
        if owner is not None:
            found.append((f"{module_name}.{attr}", owner))
    return found


def _state(owners: list[tuple[str, Any]]) -> dict[str, Any]:
    """Interpreter-wide state the measurements rely on."""
    state: dict[str, Any] = {
        "sys.gettrace()": sys.gettrace(),
        "sys.getprofile()": sys.getprofile(),
        "sys.meta_path": tuple(sys.meta_path),
        "sys.path_hooks": tuple(sys.path_hooks),
        "sys.modules": tuple(
            sys.modules.get(name) is owner
            for name, owner in owners
            if isinstance(owner, types.ModuleType)
        ),
    }
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        state["numpy.geterrcall()"] = numpy.geterrcall()
        state["numpy.geterr()"] = tuple(sorted(numpy.geterr().items()))
    try:
        import torch
        from torch.nn.modules import module

        state["torch dispatch modes"] = torch._C._len_torch_dispatch_stack()
        state["torch function modes"] = torch._C._len_torch_function_stack()
        for name in dir(module):
            if name.startswith("_global_") and name.endswith("hooks"):
                state[f"torch.nn.modules.module.{name}"] = len(getattr(module, name))
    except (ImportError, AttributeError):
        pass
    return state


class Snapshot:
    """The identity of every watched attribute, to see and undo changes."""

    def __init__(self) -> None:
        self.owners = _owners()
        self.values = [(name, owner, dict(vars(owner))) for name, owner in self.owners]
        self.state = _state(self.owners)

    def changes(self) -> list[str]:
        found = []
        for name, owner, before in self.values:
            now = vars(owner)
            strict = name.startswith(STRICT)
            for attr, value in before.items():
                if now.get(attr, MISSING) is not value and attr not in IGNORED:
                    found.append(f"{name}.{attr}")
            if strict:
                found += [
                    f"{name}.{a}" for a in now if a not in before and a not in IGNORED
                ]
        state = _state(self.owners)
        found += [k for k, v in self.state.items() if state.get(k) != v]
        return found

    def restore(self) -> None:
        for _, owner, before in self.values:
            now = vars(owner)
            for attr, value in before.items():
                if now.get(attr, MISSING) is not value:
                    try:
                        setattr(owner, attr, value)
                    except (AttributeError, TypeError):
                        pass
        sys.settrace(self.state["sys.gettrace()"])
        sys.setprofile(self.state["sys.getprofile()"])
        sys.meta_path[:] = list(self.state["sys.meta_path"])
        sys.path_hooks[:] = list(self.state["sys.path_hooks"])


MISSING = object()
