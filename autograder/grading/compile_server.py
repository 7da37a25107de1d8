"""A warm compile process: numba-cuda and libNVVM loaded once, one fork per request.

:func:`autograder.grading.cuda_compile.compile_kernels` needs a process apart
(confined, memory-capped) for every submission. Starting one costs 1.2 s:
Python, numba-cuda's imports and libNVVM's first compile; the kernels
themselves take 25 ms. A :class:`CompileServer` pays that once per grading
worker. It loads the compiler, running no answer code, then, for each
request, forks a child that does what a process of its own does once its
compiler is loaded (:func:`~autograder.grading.cuda_compile.compile_request`):
confine itself, cap its memory, load the answer, compile, report. Each child
starts from the server as it was before any answer ran, so no request sees
another's.

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

#: Seconds a stopped child's server has to report its exit before it is
#: replaced.
_GRACE_S = 5.0
_lock = threading.Lock()
_server: CompileServer | None = None
_broken: str | None = None  # why this process compiles without a server


# --- the server -----------------------------------------------------------------


def serve(cc: tuple[int, int]) -> None:
    """Load the compiler, then fork one child per request line until stdin ends."""
    from autograder.grading.cuda_compile import _load_compiler

    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # a stray print must not corrupt the reply channel
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the worker's

    def send(**event: Any) -> None:
        channel.write(json.dumps(event) + "\n")
        channel.flush()

    try:
        cuda = _load_compiler(cc)
    except Exception as exc:  # noqa: BLE001 - the one-shot path reports it
        send(unavailable=f"{type(exc).__name__}: {exc}"[:300])
        return
    send(ready=os.getpid())
    for line in sys.stdin:
        request = json.loads(line)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            # The child keeps no end of the server's own pipes: a process it
            # left behind could otherwise read the next request or answer it.
            os.close(read)
            os.close(channel.fileno())
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            _child(cuda, request, write)
        os.close(write)
        try:  # its own process group before the caller's cage takes it in
            os.setpgid(pid, pid)  # (the child does the same: whoever is first)
        except OSError:
            pass
        send(child=pid)
        with os.fdopen(read, encoding="utf-8") as events:
            for event in events:  # the child's events, passed on whole
                channel.write(event if event.endswith("\n") else event + "\n")
        channel.flush()
        _, status = os.waitpid(pid, 0)
        send(exit=os.waitstatus_to_exitcode(status))


def _child(cuda: Any, request: dict, write: int) -> None:
    """In the forked child: one request, as a compile process of its own."""
    from autograder.grading.cuda_compile import _confine, compile_request

    code = 1
    try:
        started = time.perf_counter()
        os.setpgid(0, 0)
        folder = Path(request["folder"])
        os.chdir(folder)
        err = os.open(folder / ".stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(err, 1)  # what the answer prints
        os.dup2(err, 2)
        os.close(err)
        out = os.fdopen(write, "w", buffering=1)

        def emit(**event: Any) -> None:
            out.write(json.dumps(event) + "\n")

        try:
            _confine(folder)
        except Exception as exc:  # noqa: BLE001 - reported to the caller
            emit(error=f"could not confine the compile process: {exc}")
        else:
            compile_request(cuda, request, folder, emit, started)
        out.flush()
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
        answers it; RuntimeError if the server itself stopped answering."""
        from autograder.grading.kernel.limits import ProcessCage

        line = json.dumps({**request, "folder": str(folder)}) + "\n"
        self.process.stdin.write(line.encode())
        self.process.stdin.flush()
        events, code, timed_out = [], None, False
        deadline = time.monotonic() + timeout
        cage = ProcessCage("cuda-compile")
        try:
            while code is None:
                event = self._read(deadline)
                if event is None and not timed_out and time.monotonic() >= deadline:
                    timed_out = True
                    cage.kill_all()
                    deadline = time.monotonic() + _GRACE_S
                    continue
                if event is None:
                    raise RuntimeError("the compile server stopped answering")
                if "child" in event:
                    cage.add(int(event["child"]))
                elif "exit" in event:
                    code = int(event["exit"])
                else:
                    events.append(event)
        finally:
            cage.remove()
        err = folder / ".stderr"
        text = err.read_text(errors="replace") if err.is_file() else ""
        return events, code, timed_out, text

    def close(self) -> None:
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
    from autograder.grading.cuda_compile import compile_env

    if _broken is not None or not (
        sys.platform.startswith("linux") and hasattr(os, "fork")
    ):
        return None
    env, cc = compile_env(), tuple(request["cc"])
    with _lock:
        try:
            if _server is not None and (_server.env != env or _server.cc != cc):
                _server.close()
                _server = None
            if _server is None:
                _server = CompileServer(env, cc)
                atexit.register(_server.close)
            return _server.compile(folder, request, timeout)
        except (RuntimeError, OSError) as exc:
            _broken = str(exc)
            if _server is not None:
                _server.close()
                _server = None
            return None


if __name__ == "__main__":
    serve((int(sys.argv[1]), int(sys.argv[2])))
