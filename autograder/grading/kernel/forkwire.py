"""The wire between a warm kernel server and who asks it for a kernel: one
JSON line a request (with the referee's and the store's descriptors passed
beside it), one JSON reply with the forked kernel's pid.

Used by a worker's own server (:mod:`~autograder.grading.kernel.warmkernel`)
and by the batch's shared one (:mod:`~autograder.grading.kernel.warmshare`).
"""

from __future__ import annotations

import json
import socket
from typing import Any


def request_line(
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    confine: bool,
    namespaces: bool,
    limits: dict[str, list[int]] | None,
) -> str:
    """A server's request for one kernel, as the line it reads."""
    request = {"argv": argv, "cwd": cwd, "env": env, "confine": confine}
    request.update(namespaces=namespaces, limits=limits or {})
    return json.dumps(request) + "\n"


def pid_of(reply: dict[str, Any]) -> int:
    """The forked kernel's pid in a server's reply.

    Raises:
        RuntimeError: the server could not fork (its reason).
    """
    if "pid" not in reply:
        raise RuntimeError(reply.get("error", "no pid"))
    return int(reply["pid"])


def send_request(channel: socket.socket, line: str, fd: Any) -> None:
    """A kernel's request to a server, with its referee channel if ``fd >= 0``
    (and its store's channel: ``fd`` a pair of descriptors)."""
    data = line.encode()
    fds = [f for f in (fd if isinstance(fd, (list, tuple)) else [fd]) if f >= 0]
    if fds:
        socket.send_fds(channel, [data], fds)
    else:
        channel.send(data)


def read_reply(channel: socket.socket) -> dict[str, Any]:
    data = channel.recv(1 << 16)
    if not data:
        raise RuntimeError("the kernel server exited")
    return json.loads(data)
