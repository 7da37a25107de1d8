"""In a child the warm server forked: turn into an IPython kernel.

The server (:mod:`autograder.grading.kernel.warmkernel`) has the libraries
loaded; :func:`become_kernel` takes one request's settings (folder,
environment, limits, namespaces, confinement, the referee channel's
descriptor) and runs the kernel in this process until it exits.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from autograder.grading.kernel.limits import apply_limits
from autograder.grading.referee.agent import FD_ENV
from course.simlink import STORE_FD_ENV

_exit = os._exit  # kept before any kernel code can replace os._exit


def become_kernel(request: dict[str, Any], fds: list[int] | None = None) -> None:
    """In the forked child: turn into an IPython kernel; never returns."""
    code = 1
    try:
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(request["cwd"])
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)  # not the grader's terminal, for this process and its
        os.dup2(quiet, 2)  # children alike
        os.close(quiet)
        os.environ.clear()
        os.environ.update(request["env"])
        if fds:  # the referee's channel: the agent finds it by this variable
            os.environ[FD_ENV] = str(fds[0])
        if fds and len(fds) > 1:  # the simulated GPU's: course.simlink's
            os.environ[STORE_FD_ENV] = str(fds[1])
        apply_limits(request.get("limits") or {})
        parent = int(os.environ.get("JPY_PARENT_PID") or 0)
        if request.get("namespaces"):
            from autograder.grading.kernel.sandbox import (
                _connection_file,
                enter_namespaces,
            )

            connection = _connection_file(list(request["argv"]))
            # this process stays behind, as the kernel's pid
            enter_namespaces(str(connection) if connection else None)
            parent = 0  # the stand-in watches the grader; our parent is PID 1
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()  # a cold kernel seeds from the OS
        argv = list(request["argv"])
        if request.get("confine"):
            from autograder.grading.kernel.sandbox import confine_kernel

            argv = confine_kernel(argv)  # still one thread here: all are confined
        import ipykernel_launcher

        sys.argv = [ipykernel_launcher.__file__, *argv]
        from ipykernel.kernelapp import IPKernelApp

        app = IPKernelApp.instance()
        # read from the environment when ipykernel was imported, in the server
        app.parent_handle = parent
        app.initialize(argv)
        app.start()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    except BaseException:  # noqa: BLE001 - report, then leave like a crashed kernel
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        _exit(code)


__all__ = ["become_kernel"]
