"""Warm kernels: a fresh kernel per notebook without paying for imports each time.

Every graded notebook needs its own kernel, and most of a kernel's life is spent
importing torch, NumPy, scikit-learn and IPython (about 4 s of the 7 s a Day
notebook takes on a 2-core laptop). A :class:`KernelServer` is a helper process
that imports those once and then, on request, forks a child that becomes an
ordinary IPython kernel: a new process, in its own session, with the job's
working folder, environment and limits, sharing nothing with the kernels before
it. Only the already-imported, untouched modules come for free.

What is *not* preloaded, so that the kernel behaves exactly as a cold one:
``matplotlib.pyplot`` and the inline backend (they hook into the running IPython
shell when first imported), CuPy and anything that would initialise CUDA (a
forked child cannot use a CUDA context made by its parent).

Linux only (``fork`` after these imports is not safe on macOS); elsewhere, or if
the server fails in any way, kernels are launched the usual way. Grades do not
depend on the mode: the same cells run in a fresh interpreter state.

Run as ``python -m autograder.grading.kernel.warmkernel``: the server, talking
JSON lines on stdin/stdout. :func:`manager_class` is the kernel manager that
launches warm and confined kernels: ``GradingExecute`` passes it to nbclient,
with its settings as configuration (``WarmKernelManager.warm``, ``.confine``,
``.namespaces``). Nothing of nbgrader or jupyter_client is patched, so a plain
nbgrader ``Execute`` in the same process (formgrader's autograde button) is
untouched by a grading. The manager uses the batch's shared server
(:mod:`~autograder.grading.kernel.warmshare`) where it may, else starts its own
on its first kernel launch (and again whenever the kernels' environment changes).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from autograder.grading import forkserver
from autograder.grading.kernel.become import become_kernel
from autograder.grading.kernel.forked import ForkedKernel, ready_client
from autograder.grading.kernel.limits import kernel_env, limits_now
from autograder.grading.referee.agent import FD_ENV
from course.i18n import language
from course.simlink import STORE_FD_ENV

#: Modules imported once by the server. Order matters only for speed.
PRELOAD = (
    "numpy",
    "torch",
    "torch.nn",
    # torch.optim's first step and any torch function mode (course.gpumodel's
    # trace) import it: 0.9 s in every kernel that trains or traces a model
    "torch._dynamo",
    "sklearn.datasets",
    "sklearn.linear_model",
    "sklearn.model_selection",
    "sklearn.preprocessing",
    "matplotlib",
    "matplotlib.figure",
    "matplotlib.axes",
    "IPython",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    # every kernel builds a debugger (debugpy, pydevd: 150 modules, 0.07 s) at start
    "ipykernel.debugger",
    "numba",
    "numba.cuda",  # the simulator: grading kernels set NUMBA_ENABLE_CUDASIM=1
    "course.backend",
    "course.checks",
    "course.cudasim",
    "course.racecheck",
    "course.gpumodel",
    "course.data",
    "course.devices",
    "course.fakecupy",
    "course.recorded",
    "course.results",
    "course.simulate",
    "course.sync",
    "course.timing",
    # the referee's agent: a confined kernel cannot read the autograder folder
    "autograder.grading.referee.agent",
    "autograder.grading.referee.launches",
)

#: Environment variables that differ from kernel to kernel. Any other variable
#: may have been read by a preloaded module at import time (thread counts,
#: MPLBACKEND, COURSE_FORCE_CPU...), so a server only serves kernels whose
#: environment is otherwise the one it was started with. The referee's
#: descriptor number is the kernel's own (nothing reads it before the kernel),
#: and so is the language (course.i18n reads it when a message is written).
PER_KERNEL_ENV = ("JPY_", FD_ENV, STORE_FD_ENV, "COURSE_LANG")

_INLINE = "module://matplotlib_inline.backend_inline"


def supported() -> bool:
    """Whether this platform can fork warm kernels safely."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def _frozen(env: dict[str, str]) -> dict[str, str]:
    values = {k: v for k, v in env.items() if not k.startswith(PER_KERNEL_ENV)}
    if not values.get("MPLBACKEND"):
        values["MPLBACKEND"] = _INLINE  # what ipykernel sets when it is unset
    return values


# The server process.


def serve() -> None:
    """Preload, then fork one kernel per request line until stdin closes."""
    if sys.path and Path(sys.path[0] or ".").resolve() == Path.cwd():
        del sys.path[0]  # as ipykernel_launcher does; IPython adds it back
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the worker's to handle
    if not os.environ.get("MPLBACKEND"):
        os.environ["MPLBACKEND"] = _INLINE
    import importlib

    # pydevd (the kernels' debugger) warns on import about frozen modules
    quiet = "PYDEVD_DISABLE_FILE_VALIDATION" not in os.environ
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a missing extra only costs speed
            pass
    if quiet:
        del os.environ["PYDEVD_DISABLE_FILE_VALIDATION"]
    from autograder.grading.referee import pins

    pins.pin()  # the course's names as loaded, before any student code
    forkserver.serve(become_kernel)


def kernel_request(
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    confine: bool,
    namespaces: bool,
    limits: dict[str, list[int]] | None,
) -> dict[str, Any]:
    """A kernel server's request for one kernel."""
    request = {"argv": argv, "cwd": cwd, "env": env, "confine": confine}
    request.update(namespaces=namespaces, limits=limits or {})
    return request


# The worker side.


class KernelServer(forkserver.ForkServer):
    """A running ``python -m autograder.grading.kernel.warmkernel`` and the environment
    it has."""

    def __init__(self, env: dict[str, str]) -> None:
        self.frozen = _frozen(env)
        clean = {k: v for k, v in env.items() if not k.startswith(PER_KERNEL_ENV)}
        super().__init__("autograder.grading.kernel.warmkernel", env=clean)
        forkserver.receive(self.channel)  # wait until the imports are done

    def spawn(
        self,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        confine: bool = False,
        namespaces: bool = False,
        limits: dict[str, list[int]] | None = None,
        fd: Any = -1,
    ) -> int:
        """Fork a kernel with these arguments (in the sandbox, in namespaces of
        its own, with these resource limits, holding the referee channel
        ``fd``); return its pid (that of its stand-in with namespaces)."""
        request = kernel_request(argv, cwd, env, confine, namespaces, limits)
        return self.fork(request, fd if isinstance(fd, (list, tuple)) else [fd])


def forkable(cmd: list[str]) -> bool:
    """Whether ``cmd`` starts this Python's IPython kernel (what a server forks)."""
    return (
        len(cmd) >= 3
        and cmd[0] == sys.executable
        and cmd[1:3] == ["-m", "ipykernel_launcher"]
    )


_SERVER: KernelServer | None = None
#: The batch's shared server (:mod:`~autograder.grading.kernel.warmshare`), if
#: this process is one of its workers.
SHARED: Any = None
#: Kernels launched by this process, by kind (tests check that forking is used);
#: "shared": forked by the batch's shared server, counted in "warm" too.
LAUNCHED = {"warm": 0, "cold": 0, "confined": 0, "shared": 0}
_MANAGER: type | None = None


def server_for(env: dict[str, str]) -> Any:
    """The server for kernels with this environment: the batch's shared one
    where it has it, else this process's own, (re)started as needed.

    Raises:
        RuntimeError: the server could not start.
    """
    global _SERVER
    if SHARED is not None and SHARED.alive() and SHARED.frozen == _frozen(env):
        return SHARED
    if _SERVER is not None and (not _SERVER.alive() or _SERVER.frozen != _frozen(env)):
        _SERVER.close()
        _SERVER = None
    if _SERVER is None:
        _SERVER = KernelServer(env)
    return _SERVER


def manager_class() -> type:
    """The kernel manager class that launches warm and/or confined kernels."""
    global _MANAGER
    if _MANAGER is not None:
        return _MANAGER
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import Bool, Integer, default

    class WarmKernelManager(AsyncKernelManager):
        """Launches kernels by forking the warm server; cold when it cannot.

        With ``confine``, every kernel of this Python, warm or cold, is
        confined (:mod:`autograder.grading.kernel.sandbox`) before it runs any code, in
        namespaces of its own with ``namespaces``.
        """

        warm = Bool(True, help="Fork kernels from the warm server (Linux).").tag(
            config=True
        )
        confine = Bool(False, help="Confine every kernel.").tag(config=True)
        namespaces = Bool(
            False, help="Give confined kernels their own namespaces."
        ).tag(config=True)
        referee_fd = Integer(
            -1, help="The kernel's end of the referee's channel (-1: none)."
        )
        store_fd = Integer(
            -1, help="The kernel's end of its simulated GPU's channel (-1: none)."
        )

        @default("client_factory")
        def _ready_client(self) -> type:
            return ready_client()

        async def _async_wait(self, pollinterval: float = 0.1) -> None:
            # A kernel exits within milliseconds of its shutdown reply; polling
            # every 0.1 s, as jupyter_client does, costs 0.1 s per kernel.
            await super()._async_wait(pollinterval=min(pollinterval, 0.01))

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            # Only allowed variables reach the kernel (and the server it forks
            # from, whose environment block a child can still read in /proc).
            env = kernel_env(dict(kw.get("env") or os.environ))
            env["JPY_PARENT_PID"] = str(os.getpid())  # as jupyter_client's launcher
            # The graded notebook's language (the grader's use_language), not
            # that of a notebook the grader itself was started from.
            env.pop("JPY_SESSION_NAME", None)
            env["COURSE_LANG"] = language()
            fd: Any = self.referee_fd
            if fd >= 0:
                env[FD_ENV] = str(fd)
                kw["pass_fds"] = (fd,)
                if self.store_fd >= 0:
                    env[STORE_FD_ENV] = str(self.store_fd)
                    kw["pass_fds"] = fd = (fd, self.store_fd)
            kw["env"] = env
            # The kernel's own output goes to the notebook, never to the grader's
            # terminal (nor does that of anything it starts).
            kw.setdefault("stdout", subprocess.DEVNULL)
            kw.setdefault("stderr", subprocess.DEVNULL)
            cwd = str(kw.get("cwd") or os.getcwd())
            ours = forkable(kernel_cmd)  # this Python's IPython kernel
            confine = self.confine and ours
            spaces = confine and self.namespaces
            level = "--IPKernelApp.log_level"
            if ours and not any(str(a).startswith(level) for a in kernel_cmd):
                # ipykernel 7 warns on every start that loopback TCP is not
                # encrypted: one line per graded notebook on the grader's terminal.
                # (Given twice, the option stops a forked kernel before it starts.)
                kernel_cmd = [*kernel_cmd, f"{level}=ERROR"]
            try:
                if not (self.warm and supported()):
                    raise RuntimeError("warm kernels are off")
                if not ours:
                    raise RuntimeError("not this Python's IPython kernel")
                server = server_for(env)
                pid = server.spawn(
                    list(kernel_cmd[3:]), cwd, env, confine, spaces, limits_now(), fd
                )
            except Exception:  # noqa: BLE001 - the usual launch always works
                LAUNCHED["cold"] += 1
                LAUNCHED["confined"] += confine
                if confine:  # the same kernel, confined by a small launcher
                    tail = list(kernel_cmd[3:])
                    if not spaces:
                        tail.insert(0, "--no-namespaces")
                    kernel_cmd = [
                        kernel_cmd[0],
                        "-m",
                        "autograder.grading.kernel.sandbox",
                        *tail,
                    ]
                await super()._async_launch_kernel(kernel_cmd, **kw)
                return
            LAUNCHED["warm"] += 1
            LAUNCHED["shared"] += server is SHARED
            LAUNCHED["confined"] += confine
            provisioner: Any = self.provisioner
            provisioner.process = ForkedKernel(pid)
            provisioner.pid = provisioner.pgid = pid
            provisioner.cwd = cwd
            self._reconcile_connection_info(provisioner.connection_info)

    _MANAGER = WarmKernelManager
    return _MANAGER


if __name__ == "__main__":
    serve()
