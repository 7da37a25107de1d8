"""Keep a student's code from tampering with the tests that grade it.

During grading, :func:`autograder.grading.chain.reassemble` adds two kinds of cells to
every submission (nbgrader leaves cells without its metadata alone):

* one cell at the very top: ``install()`` records the original check functions
  (``course.checks``, ``numpy.testing``, ``torch.testing``), ``sys.excepthook``
  and IPython's traceback display, before any student code runs, and turns
  ``os._exit``, ``os.abort`` and killing the kernel's own process into errors;
* before every test cell: ``restore(globals())`` puts all of them back, in their
  modules and in the notebook's names, undoing monkeypatching done by answers.

This is a second line of defence only. Hidden tests are judged outside the
kernel (:mod:`autograder.grading.chain.verdict`); what the guard protects is what can
only be checked inside it: visible tests and in-kernel counts. Code determined
to subvert the interpreter it runs in can always do more.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

#: Modules whose functions tests call, and the prefix of the names kept.
_MODULES = {
    "course.checks": "check_",
    "course.results": "",  # submit, outcome, encode
    "numpy.testing": "assert_",
    "torch.testing": "assert_",
}
_originals: dict[tuple[str, str], Any] = {}
_shell_originals: dict[str, Any] = {}
_sys_originals: dict[str, Any] = {}


def _public(module: Any, prefix: str) -> list[str]:
    names = dir(module) if prefix else getattr(module, "__all__", [])
    return [
        n
        for n in names
        if n.startswith(prefix)
        and not n.startswith("_")
        and callable(getattr(module, n))
    ]


def _refuse_exit(*args: Any, **kwargs: Any) -> None:
    raise SystemExit("leaving the kernel is disabled while grading")


def _guarded_kill(pid: int, sig: int) -> None:
    import os

    if pid in (0, os.getpid()):
        raise SystemExit("killing the kernel is disabled while grading")
    _sys_originals["kill"](pid, sig)


def _disable_exits() -> None:
    import os

    os._exit = _refuse_exit
    os.abort = _refuse_exit
    os.kill = _guarded_kill


def install() -> None:
    """Record the originals, before any student code; a second call (the
    notebook's, after the measured run's in the same kernel) keeps the first's."""
    import os

    if _originals:
        _disable_exits()
        return
    _sys_originals["kill"] = os.kill
    _disable_exits()
    for name, prefix in _MODULES.items():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr in _public(module, prefix):
            _originals[(name, attr)] = getattr(module, attr)
    _sys_originals.update(excepthook=sys.__excepthook__, exit=sys.exit)
    try:
        from IPython.core.interactiveshell import InteractiveShell

        for attr in ("showtraceback", "_showtraceback", "showsyntaxerror"):
            if attr in vars(InteractiveShell):
                _shell_originals[attr] = vars(InteractiveShell)[attr]
        from ipykernel.zmqshell import ZMQInteractiveShell

        for attr in ("_showtraceback",):
            if attr in vars(ZMQInteractiveShell):
                _shell_originals[f"zmq.{attr}"] = vars(ZMQInteractiveShell)[attr]
    except ImportError:
        pass


def restore(namespace: dict[str, Any]) -> None:
    """Put every recorded original back, in its module and in ``namespace``."""
    by_identity = {}
    for (name, attr), original in _originals.items():
        module = sys.modules.get(name)
        if module is not None:
            setattr(module, attr, original)
        by_identity[attr] = original
    for attr, original in by_identity.items():
        if attr in namespace and namespace[attr] is not original:
            if getattr(original, "__module__", "").startswith(
                ("course.", "numpy", "torch")
            ):
                namespace[attr] = original
    sys.excepthook = _sys_originals.get("excepthook", sys.__excepthook__)
    _disable_exits()
    if "exit" in _sys_originals:
        sys.exit = _sys_originals["exit"]
    try:
        from ipykernel.zmqshell import ZMQInteractiveShell
        from IPython import get_ipython
        from IPython.core.interactiveshell import InteractiveShell

        for attr, original in _shell_originals.items():
            owner = ZMQInteractiveShell if attr.startswith("zmq.") else InteractiveShell
            setattr(owner, attr.removeprefix("zmq."), original)
        shell = get_ipython()
        if shell is not None:
            for attr in ("showtraceback", "_showtraceback", "showsyntaxerror"):
                shell.__dict__.pop(attr, None)  # instance-level overrides
    except ImportError:
        pass


def install_source() -> str:
    """The source of the cell that goes first in a graded notebook."""
    return "import autograder.grading.guard as _course_guard\n_course_guard.install()"


def restore_source() -> str:
    """The source of the cell that goes before every test cell."""
    return "__import__('autograder.grading.guard').grading.guard.restore(globals())"
