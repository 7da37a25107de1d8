"""The one fork server: a warm process that forks a child per request.

Three warm processes fork on request, and all three are this loop with a
handler of their own: the kernel server (grading kernels,
:mod:`autograder.grading.kernel.warmkernel`; a worker's own, or the batch's
one shared by :mod:`~autograder.grading.kernel.warmshare`), the simulated GPU's
store server (:mod:`autograder.grading.referee.store`) and the compile server
(:mod:`autograder.grading.compile_server`). Each imports what its children need
once, which is the point of it: a fork costs about a millisecond, a new Python
with torch seconds. They stay three processes because what they import cannot
share one: numba's CUDA simulator is on in kernels and stores, off in the
compiler.

The wire: a ``SOCK_SEQPACKET`` socket pair, the server's end as its stdin. A
request is one packet of JSON with descriptors attached (``SCM_RIGHTS``: a
kernel's referee channel, a store's two channels, a compile's event pipe and
stderr file). For each, :func:`serve` forks a child that runs the handler
(which never returns) and replies ``{"pid": pid}``, or ``{"error": why}``
without forking. With ``wait``, it then waits for the child, kills whatever
the child left behind (the server is their subreaper) and replies
``{"exit": code}``. The server's first packet is ``{"ready": pid}``, or
``{"unavailable": why}`` from :func:`refuse`.

A child holds no end of the server's channel, and its stdin is empty.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

#: Largest request (a kernel's carries its environment).
MAX_REQUEST = 1 << 22
#: Most descriptors a request carries.
MAX_FDS = 4
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_CLONE_NEWUSER, _CLONE_NEWPID = 0x10000000, 0x20000000


# --- the wire ---------------------------------------------------------------------


def send(channel: socket.socket, message: dict, fds: Sequence[int] = ()) -> None:
    """One packet: ``message`` as JSON, with ``fds`` attached."""
    data = json.dumps(message).encode()
    fds = [f for f in fds if f >= 0]
    if fds:
        socket.send_fds(channel, [data], fds)
    else:
        channel.send(data)


def receive(channel: socket.socket, timeout: float | None = None) -> dict | None:
    """The next packet, or None at ``timeout`` seconds.

    Raises:
        RuntimeError: the server has exited.
    """
    if timeout is not None:
        import select

        if not select.select([channel], [], [], max(0.0, timeout))[0]:
            return None
    data = channel.recv(1 << 16)
    if not data:
        raise RuntimeError("the fork server exited")
    reply = json.loads(data)
    return reply if isinstance(reply, dict) else {}


def pid_of(reply: dict | None) -> int:
    """The forked child's pid in a reply.

    Raises:
        RuntimeError: the server could not fork (its reason).
    """
    if not reply or "pid" not in reply:
        raise RuntimeError((reply or {}).get("error", "no pid"))
    return int(reply["pid"])


class ForkServer:
    """The caller's side: ``python -m MODULE ARGS`` started with ``env``, its
    end of the pair, and the server's first packet."""

    def __init__(
        self,
        module: str,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        *,
        cwd: str | None = None,
        quiet: bool = False,
        ready: float | None = None,
    ) -> None:
        """``quiet``: the server's stdout and stderr go nowhere. ``ready``:
        wait at most so many seconds for the server's first packet (None:
        leave it to whoever reads first)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        out = subprocess.DEVNULL if quiet else None
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", module, *args],
                stdin=theirs,
                stdout=out,
                stderr=out,
                env=env,
                cwd=cwd,
                start_new_session=quiet,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.channel = ours
        self.killed = False
        self.first: dict | None = None
        if ready is not None:
            try:
                self.first = receive(self.channel, ready)
            except (OSError, RuntimeError, ValueError) as exc:
                self.first = {"exited": str(exc)}
            if not self.first or "ready" not in self.first:
                self.kill()
                raise RuntimeError(f"the server did not start: {self.first}")

    def alive(self) -> bool:
        return not self.killed and self.process.poll() is None

    def fork(self, request: dict, fds: Sequence[int] = ()) -> int:
        """Ask for one child; its pid.

        Raises:
            RuntimeError: the server has exited or could not fork.
        """
        send(self.channel, request, fds)
        return pid_of(receive(self.channel))

    def kill(self) -> None:
        """End the server and everything in its session now."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            self.process.kill()
        self.process.wait()
        self.channel.close()
        self.killed = True

    def close(self) -> None:
        """End the server: it reads end-of-file and exits; children it did not
        wait for stay until their own end."""
        if self.killed:
            return
        try:
            self.channel.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.channel.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# --- the server -------------------------------------------------------------------


def _channel() -> socket.socket:
    """The server's end of the pair (its stdin); stdin becomes empty and
    stdout the same file as stderr, so a stray print cannot reach the wire."""
    channel = socket.socket(fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return channel


def refuse(reason: str) -> None:
    """A server that cannot serve says why, as its first packet, and ends."""
    send(_channel(), {"unavailable": reason[:300]})


def serve(
    handle: Callable[[dict, list[int]], None],
    *,
    accept: Callable[[dict, list[int]], str | None] | None = None,
    wait: bool = False,
    end_with_parent: bool = False,
) -> None:
    """Fork ``handle(request, fds)`` for each request until the channel ends.

    ``accept`` says what is wrong with a request before any fork (None: it
    is fine), and may prepare the server for it. ``wait``: one child at a
    time, waited for, whatever it left behind killed, its exit code replied.
    ``end_with_parent``: the server, and what it started, end when the
    process that started it does (on SIGTERM too)."""
    import ctypes

    channel = _channel()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's
    libc = ctypes.CDLL(None, use_errno=True)
    if wait:
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    else:
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped at once
    if end_with_parent:
        _end_with_parent(libc)
    try:
        send(channel, {"ready": os.getpid()})
        _loop(channel, handle, accept, wait)
    except (BrokenPipeError, ConnectionResetError):  # the callers are gone
        os._exit(0)


def _loop(channel: socket.socket, handle: Any, accept: Any, wait: bool) -> None:
    while True:
        data, fds, _, _ = socket.recv_fds(channel, MAX_REQUEST, MAX_FDS)
        if not data:
            return
        try:
            request = json.loads(data)
            problem = accept(request, fds) if accept else None
            pid = -1 if problem else os.fork()
        except Exception as exc:  # noqa: BLE001 - told to the caller, serving on
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            for fd in fds:
                os.close(fd)
            send(channel, {"error": problem})
            continue
        if pid == 0:
            code = 1
            try:
                channel.close()
                if not wait:
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                handle(request, fds)
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        send(channel, {"pid": pid})
        if wait:
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            end_leftovers()
            send(channel, {"exit": code})


def end_leftovers() -> None:
    """Kill and reap every process a child left behind (reparented to us)."""
    from autograder.grading.kernel.limits import descendants

    while children := descendants(os.getpid()):
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def _end_with_parent(libc: Any) -> None:
    """On SIGTERM, and when the process that started the server is gone (its
    parent changes), kill what it started and exit; die with that parent
    (``PR_SET_PDEATHSIG``)."""
    parent = os.getppid()
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def end(*_: Any) -> None:
        end_leftovers()
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
    """In a child: the rest runs as PID 1 of a new PID namespace (the Linux
    kernel kills whatever it leaves behind when it exits), below a stand-in
    that dies with the server and takes the namespace with it. Where
    namespaces are refused the child runs as it is (a waiting server still
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
            pass  # the child still runs, as nobody in the namespace
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
