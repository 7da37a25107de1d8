"""A warm compile process: numba-cuda and libNVVM loaded once, one fork per request.

:func:`autograder.grading.cuda_compile.compile_kernels` needs a process apart
(confined, memory-capped) for every submission. Starting one costs 1.2 s:
Python, numba-cuda's imports and libNVVM's first compile; the kernels
themselves take 25 ms. A :class:`CompileServer` pays that once per grading
worker. It loads the compiler, running no answer code, then, for each
request, forks a child that does what a process of its own does once its
compiler is loaded (:func:`~autograder.grading.cuda_worker.compile_request`):
confine itself, cap its memory, load the answer, compile, report. Each child
starts from the server as it was before any answer ran and holds no end of
the server's pipes; the server is the subreaper of what a child starts and
kills it before the next request, so no request sees another's. The child's
stderr is a file the caller made and reads through its own descriptor.

Linux only (``fork``); elsewhere, or if the server cannot start or stops
answering, :func:`run` returns None and a process of its own compiles. Results
do not depend on the path taken: the same function runs under the same limits.

Run as ``python -m autograder.grading.compile_server CC``: the server, reading
a JSON request a line on stdin and writing JSON events a line on stdout.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

#: Seconds the server has to report a killed child's exit before it is
#: killed too.
_GRACE_S = 5.0
_lock = threading.Lock()
_server: CompileServer | None = None
_broken: str | None = None  # why this process compiles without a server


# --- the server -----------------------------------------------------------------

_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_CLONE_NEWUSER, _CLONE_NEWPID = 0x10000000, 0x20000000


def serve(cc: tuple[int, int]) -> None:
    """Load the compiler, then fork one child per request line until stdin ends.

    The server is the subreaper of everything its children start: once a
    child has exited, whatever it left behind is killed before the next
    request is read, and the child holds no end of the server's own pipes."""
    import ctypes

    from autograder.grading.cuda_worker import load_compiler

    out = os.dup(1)
    os.dup2(2, 1)  # a stray print must not corrupt the reply channel
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the worker's
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    _end_with_parent(libc)

    def send(**event: Any) -> None:
        _write_all(out, (json.dumps(event) + "\n").encode())

    try:
        cuda = load_compiler(cc)
    except Exception as exc:  # noqa: BLE001 - the one-shot path reports it
        send(unavailable=f"{type(exc).__name__}: {exc}"[:300])
        return
    send(ready=os.getpid())
    for line in sys.stdin:
        request = json.loads(line)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.close(out)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            in_own_namespace(libc)
            _child(cuda, request, write)
        os.close(write)
        send(child=pid)
        code = _relay(pid, read, out)
        os.close(read)
        _end_leftovers()
        send(exit=code)


def _end_with_parent(libc: Any) -> None:
    """The server ends with the batch: on SIGTERM, and when the worker that
    started it is gone (its parent changes), it kills what it started and
    exits; it also dies with that parent (``PR_SET_PDEATHSIG``)."""
    parent = os.getppid()
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def end(*_: Any) -> None:
        _end_leftovers()
        os._exit(0)

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGHUP, end)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        end()

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
    if os.getppid() != parent:
        end()


def in_own_namespace(libc: Any) -> None:
    """In a request's process: the rest runs as PID 1 of a new PID namespace
    (the Linux kernel kills whatever it leaves behind when it exits), below a
    stand-in that dies with the server and takes the namespace with it.
    Where namespaces are refused the request runs as it is (the server still
    kills what it leaves behind)."""
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWPID if uid == 0 else _CLONE_NEWPID | _CLONE_NEWUSER
    if libc.unshare(flags) != 0:
        return
    if uid != 0:
        try:
            for name, text in (
                ("setgroups", "deny"),
                ("uid_map", f"{uid} {uid} 1"),
                ("gid_map", f"{gid} {gid} 1"),
            ):
                with open(f"/proc/self/{name}", "w", encoding="ascii") as f:
                    f.write(text)
        except OSError:
            pass  # the request still runs, as nobody in the namespace
    child = os.fork()
    if child == 0:  # PID 1 of the namespace: dies with the stand-in
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        return
    signal.signal(signal.SIGTERM, lambda *_: os._exit(1))
    status = os.waitpid(child, 0)[1]
    if os.WIFSIGNALED(status):  # the same end, seen by the server
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def _relay(pid: int, read: int, out: int) -> int:
    """Pass the child's events on until it has exited and its pipe is drained
    (a process it left behind that holds the pipe is ended); its exit code."""
    import select

    code = None
    while True:
        if select.select([read], [], [], 0.05)[0]:
            data = os.read(read, 1 << 16)
            if not data:
                break
            _write_all(out, data)
        elif code is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                _end_leftovers()
    if code is None:  # the pipe closed first: wait for the child itself
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return code


def _end_leftovers() -> None:
    """Kill and reap every process a child left behind (reparented to us)."""
    from autograder.grading.kernel.limits import descendants

    while children := descendants(os.getpid()):
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def _child(cuda: Any, request: dict, write: int) -> None:
    """In the forked child: one request, as a compile process of its own."""
    from autograder.grading.cuda_worker import compile_request, confine

    code = 1
    try:
        started = time.perf_counter()
        os.setpgid(0, 0)
        folder = Path(request["folder"])
        os.chdir(folder)
        # made by the caller, who reads it through its own descriptor
        err = os.open(folder / ".stderr", os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
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


class CompileServer:
    """One warm compile server, started with ``env``, for compute capability ``cc``."""

    def __init__(self, env: dict[str, str], cc: tuple[int, int]) -> None:
        self.env, self.cc = env, cc
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder.grading.compile_server", *map(str, cc)],
            cwd=tempfile.gettempdir(),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._buffer = b""
        self.killed = False
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        first = self._read(time.monotonic() + 120)
        if not first or "ready" not in first:
            self.close()
            raise RuntimeError(f"the compile server did not start: {first}")

    def _read(self, deadline: float) -> dict | None:
        """The next event, or None at the deadline or the end of the output
        (read from the pipe itself: a buffered reader would hide lines it
        holds from the wait)."""
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    return event
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                return None
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk

    def compile(
        self, folder: Path, request: dict, timeout: float
    ) -> tuple[list[dict], int, bool, str]:
        """One request, as :func:`~autograder.grading.cuda_compile._run_worker`
        answers it. Past ``timeout`` the child is killed; a server that then
        does not report its exit within a few seconds is killed too (the next
        request starts another)."""
        # The child's stderr: made here and read through this descriptor, so
        # that what the answer puts at that path is never what is read.
        err = os.open(
            folder / ".stderr",
            os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o600,
        )
        events, code, timed_out, child = [], None, False, None
        try:
            line = json.dumps({**request, "folder": str(folder)}) + "\n"
            self.process.stdin.write(line.encode())
            self.process.stdin.flush()
            deadline = time.monotonic() + timeout
            while code is None:
                event = self._read(deadline)
                if event is None and not timed_out and time.monotonic() >= deadline:
                    timed_out = True
                    _kill(child)
                    deadline = time.monotonic() + _GRACE_S
                    continue
                if event is None:
                    self.kill()
                    code = -signal.SIGKILL
                elif "child" in event:
                    child = int(event["child"])
                elif "exit" in event:
                    code = int(event["exit"])
                else:
                    events.append(event)
            return events, code, timed_out, _tail_of(err)
        finally:
            os.close(err)

    def kill(self) -> None:
        """End the server and everything in its session now."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        self.process.wait()
        self.killed = True

    def close(self) -> None:
        if self.killed:
            return
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


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
