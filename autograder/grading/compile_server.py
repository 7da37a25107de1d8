"""A warm compile process: numba-cuda and libNVVM loaded once, one fork per request.

:func:`autograder.grading.cuda_compile.compile_kernels` needs a process apart
(confined, memory-capped) for every submission. Starting one costs 1.2 s:
Python, numba-cuda's imports and libNVVM's first compile; the kernels
themselves take 25 ms. A :class:`CompileServer` pays that once per grading
worker. It is the course's one fork server (:mod:`autograder.grading.forkserver`)
with the compiler loaded and no answer code run: for each request it forks a
child that does what a process of its own does once its compiler is loaded
(:func:`~autograder.grading.cuda_worker.compile_request`): confine itself,
cap its memory, load the answer, compile, report its events on a pipe the
caller passed it. Each child starts from the server as it was before any
answer ran and holds no end of the server's channel; the server waits for it,
is the subreaper of what it starts and kills that before the next request,
so no request sees another's. The child's stderr is a file the caller made,
passed to it, and read through the caller's own descriptor.

Linux only (``fork``); elsewhere, or if the server cannot start or stops
answering, :func:`run` returns None and a process of its own compiles. Results
do not depend on the path taken: the same function runs under the same limits.

Run as ``python -m autograder.grading.compile_server MAJOR MINOR``: the server,
on :mod:`autograder.grading.forkserver`'s wire.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from autograder.grading import forkserver

#: Seconds the server has to report a killed child's exit before it is
#: killed too.
_GRACE_S = 5.0
_lock = threading.Lock()
_server: CompileServer | None = None
_broken: str | None = None  # why this process compiles without a server


# --- the server -----------------------------------------------------------------


def serve(cc: tuple[int, int]) -> None:
    """Load the compiler, then fork one child per request, waiting for each
    (:func:`autograder.grading.forkserver.serve`, with ``wait``): once a child
    has exited, whatever it left behind is killed before the next request."""
    from autograder.grading.cuda_worker import load_compiler

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the worker's
    try:
        cuda = load_compiler(cc)
    except Exception as exc:  # noqa: BLE001 - the one-shot path reports it
        forkserver.refuse(f"{type(exc).__name__}: {exc}")
        return

    def handle(request: dict, fds: list[int]) -> None:
        import ctypes

        forkserver.in_own_namespace(ctypes.CDLL(None, use_errno=True))
        _child(cuda, request, fds)

    forkserver.serve(handle, wait=True, end_with_parent=True)


def _child(cuda: Any, request: dict, fds: list[int]) -> None:
    """In the forked child: one request, as a compile process of its own. Its
    descriptors: the caller's event pipe and the stderr file the caller made
    (and reads through its own descriptor)."""
    from autograder.grading.cuda_worker import compile_request, confine

    code = 1
    try:
        started = time.perf_counter()
        os.setpgid(0, 0)
        write, err = fds
        folder = Path(request["folder"])
        os.chdir(folder)
        os.dup2(err, 1)  # what the answer prints
        os.dup2(err, 2)
        os.close(err)
        events = os.fdopen(write, "w", buffering=1)

        def emit(**event: Any) -> None:
            events.write(json.dumps(event) + "\n")

        try:
            confine(folder)
        except Exception as exc:  # noqa: BLE001 - reported to the caller
            emit(error=f"could not confine the compile process: {exc}")
        else:
            compile_request(cuda, request, folder, emit, started)
        events.flush()
        code = 0
    except BaseException:  # noqa: BLE001 - the caller sees the exit code
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


# --- the caller's side -------------------------------------------------------------


class CompileServer(forkserver.ForkServer):
    """One warm compile server, started with ``env``, for compute capability ``cc``."""

    def __init__(self, env: dict[str, str], cc: tuple[int, int]) -> None:
        self.env, self.cc = env, cc
        super().__init__(
            "autograder.grading.compile_server",
            [str(n) for n in cc],
            env,
            cwd=tempfile.gettempdir(),
            quiet=True,
            ready=120,
        )

    def compile(
        self, folder: Path, request: dict, timeout: float
    ) -> tuple[list[dict], int, bool, str]:
        """One request, as :func:`~autograder.grading.cuda_compile._run_worker`
        answers it. Past ``timeout`` the child is killed; a server that then
        does not report its exit within a few seconds is killed too (the next
        request starts another)."""
        # The child's stderr: made here and passed to it, and read through this
        # descriptor, so that what the answer puts at that path is never read.
        err = os.open(
            folder / ".stderr",
            os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o600,
        )
        read, write = os.pipe()
        try:
            try:
                child = self.fork({**request, "folder": str(folder)}, [write, err])
            except (OSError, RuntimeError, ValueError):
                self.kill()
                return [], -signal.SIGKILL, False, ""
            finally:
                os.close(write)
            events, code, timed_out = self._follow(read, child, timeout)
            return events, code, timed_out, _tail_of(err)
        finally:
            os.close(read)
            os.close(err)

    def _follow(self, read: int, child: int, timeout: float) -> tuple:
        """The child's events from its pipe and its exit code from the
        server, until both are in; past ``timeout`` the child is killed, and
        a server silent for a few seconds more is killed too."""
        from autograder.grading.cuda_worker import events_of

        data, code, timed_out, done = b"", None, False, False
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(read, selectors.EVENT_READ)
            selector.register(self.channel, selectors.EVENT_READ)
            while code is None or not done:
                left = max(0.0, deadline - time.monotonic())
                ready = [key.fileobj for key, _ in selector.select(left)]
                if not ready and code is None and not timed_out:
                    timed_out = True
                    _kill(child)
                    deadline = time.monotonic() + _GRACE_S
                elif not ready:
                    if code is None:
                        self.kill()
                        code = -signal.SIGKILL
                    break
                if read in ready:
                    chunk = os.read(read, 1 << 16)
                    data += chunk
                    if not chunk:
                        done = True
                        selector.unregister(read)
                if self.channel in ready:
                    code = self._exit_code()
                    if code is not None:
                        selector.unregister(self.channel)
                        deadline = time.monotonic() + _GRACE_S
        return events_of(data), code, timed_out

    def _exit_code(self) -> int | None:
        """The exit code the server reports for the child; a server that
        broke its channel is killed (-9)."""
        try:
            reply = forkserver.receive(self.channel)
        except (OSError, RuntimeError, ValueError):
            self.kill()
            return -signal.SIGKILL
        return int(reply["exit"]) if reply and "exit" in reply else None


def run(
    folder: Path, request: dict, timeout: float
) -> tuple[list[dict], int, bool, str] | None:
    """Compile on this process's warm server; None where there is none (then
    the caller starts a process of its own)."""
    global _server, _broken
    from autograder.grading.cuda_worker import compile_env

    if _broken is not None or not (
        sys.platform.startswith("linux") and hasattr(os, "fork")
    ):
        return None
    env, cc = compile_env(), tuple(request["cc"])
    with _lock:
        if _server is not None and (
            _server.killed or _server.env != env or _server.cc != cc
        ):
            _server.close()
            _server = None
        if _server is None:
            try:
                _server = CompileServer(env, cc)
            except (RuntimeError, OSError) as exc:
                _broken = str(exc)  # this process compiles without a server
                return None
            atexit.register(_server.close)
        return _server.compile(folder, request, timeout)


def _kill(pid: int | None) -> None:
    """Kill a request's child, by its pid (it may have left its group), and
    its group."""
    if pid:
        for kill in (os.kill, os.killpg):
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _tail_of(fd: int, limit: int = 1 << 16) -> str:
    """The last ``limit`` bytes written to ``fd``'s file."""
    size = os.fstat(fd).st_size
    return os.pread(fd, min(size, limit), max(0, size - limit)).decode(errors="replace")


if __name__ == "__main__":
    serve((int(sys.argv[1]), int(sys.argv[2])))
