"""A fork server for tests (``python -m tests.forkserver_echo [wait]``): each
child writes what it sees to the descriptor it was sent, then exits with the
request's code, leaving a sleeper behind when asked."""

from __future__ import annotations

import json
import os
import stat
import sys
import time

from autograder.grading import forkserver


def _accept(request: dict, fds: list[int]) -> str | None:
    return "no descriptor" if not fds else None


def _handle(request: dict, fds: list[int]) -> None:
    sockets = [
        fd
        for fd in map(int, os.listdir("/proc/self/fd"))
        if fd not in fds and _is_socket(fd)
    ]
    seen = {
        "text": request.get("text"),
        "stdin": os.read(0, 10).decode(),
        "sockets": sockets,
    }
    if request.get("leave"):
        if os.fork() == 0:
            os.setsid()
            time.sleep(60)
            os._exit(0)
    os.write(fds[0], json.dumps(seen).encode())
    os._exit(int(request.get("code", 0)))


def _is_socket(fd: int) -> bool:
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False


if __name__ == "__main__":
    forkserver.serve(_handle, accept=_accept, wait=sys.argv[1:] == ["wait"])
