"""One warm kernel server for a whole batch, shared by its grading workers.

A :class:`~autograder.grading.kernel.warmkernel.KernelServer` costs 3.6 s and
4.9 s of CPU to start (its imports) and about 500 MB while it runs. With one per
grading worker, a batch on 2 cores paid that twice, in every worker's first
job. Instead the batch's main process starts one (:class:`SharedServer`) as
soon as it knows there is work, while the worker processes are still being
made, and hands every worker the same end of a socket pair and a lock
(:meth:`SharedServer.handle`). A worker asks for a kernel under the lock; the
server forks it exactly as it forks a worker's own.

- The server is started with the kernels' allowed environment only
  (:func:`~autograder.grading.kernel.limits.kernel_env`), as a worker would
  start it: no secret of the grader is in its environment block.
- Nothing but the workers can reach it: the socket is a pair, with no path to
  connect to, and the kernels it forks close both of its ends.
- Each request carries the worker's resource limits, which a kernel forked
  from a worker's own server used to inherit (``RLIMIT_AS``, ``RLIMIT_FSIZE``).
- A worker whose kernels need another environment than the shared server's
  (other thread settings, say) starts its own, as before; so does one whose
  shared server has stopped answering.
"""

from __future__ import annotations

import multiprocessing
import socket
from typing import Any

from autograder.grading import forkserver
from autograder.grading.kernel.warmkernel import PER_KERNEL_ENV, _frozen, kernel_request


class SharedServer(forkserver.ForkServer):
    """The main process's side: the server process and its end of the pair."""

    def __init__(self, env: dict[str, str], context: Any = None) -> None:
        self.frozen = _frozen(env)
        clean = {k: v for k, v in env.items() if not k.startswith(PER_KERNEL_ENV)}
        super().__init__("autograder.grading.kernel.warmkernel", env=clean)
        self.socket = self.channel
        self.lock = (context or multiprocessing.get_context()).Lock()

    def handle(self) -> Handle:
        """What a worker needs to ask for kernels (passed when it starts)."""
        return Handle(self.socket, self.lock, self.frozen)


class Handle:
    """A worker's side: ``spawn`` as :class:`KernelServer` has it."""

    def __init__(self, sock: socket.socket, lock: Any, frozen: dict[str, str]):
        self.socket, self.lock, self.frozen = sock, lock, frozen
        self.broken = False

    def __reduce__(self) -> tuple:
        # multiprocessing sends the socket's descriptor to the new worker
        return (Handle, (self.socket, self.lock, self.frozen))

    def alive(self) -> bool:
        return not self.broken

    def spawn(self, *request: Any, fd: Any = -1) -> int:
        """Fork a kernel (arguments as :meth:`KernelServer.spawn` has them);
        return its pid.

        Raises:
            RuntimeError: the server has exited or could not fork (the handle
                is then broken: this worker uses a server of its own).
        """

        if len(request) > 6:
            request, fd = request[:6], request[6]
        try:
            fds = fd if isinstance(fd, (list, tuple)) else [fd]
            with self.lock:
                forkserver.send(self.socket, kernel_request(*request), fds)
                while True:  # the server's "ready" goes to whoever reads first
                    reply = forkserver.receive(self.socket)
                    if "ready" not in reply:
                        break
        except (OSError, ValueError, RuntimeError) as exc:
            self.broken = True
            raise RuntimeError(f"the shared kernel server: {exc}") from exc
        return forkserver.pid_of(reply)
