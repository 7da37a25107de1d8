"""The local worker pool: grading processes started with the allow-listed
environment, a warm kernel server they share, and how they end; and
:class:`Halt`, any executor's word that the batch must stop.

``course grade --jobs N`` grades on :func:`worker_pool`; a Dask worker under
``--cluster`` runs the same pool, one process per task slot
(:mod:`autograder.classgrade.remote`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from autograder.classgrade.worker import THREAD_VARIABLES

if TYPE_CHECKING:
    from autograder.grading.kernel.warmshare import SharedServer

__all__ = ["Halt", "shared_server", "stop_pool", "worker_pool"]


class Halt(RuntimeError):
    """An executor's word that the batch cannot go on (a cluster's scheduler
    went away): :func:`autograder.classgrade.batch.run` stops; what was stored
    stays for a rerun."""


def worker_pool(
    workers: int,
    preload: tuple[str, ...] = ("autograder.classgrade.worker",),
    shared: SharedServer | None = None,
) -> ProcessPoolExecutor:
    """Grading workers, started with the allow-listed environment.

    A process shows the environment it was started with in /proc/<pid>/environ
    whatever it changes later, so the workers are not forked from this process
    (whose environment may hold the grader's secrets) but from a fork server
    started with :func:`autograder.grading.kernel.limits.worker_env` only; each worker
    then
    takes that filtered environment as it is now. With ``shared`` (made with
    :func:`shared_server`), the workers fork their kernels from that one
    server.
    """
    from multiprocessing import forkserver

    from autograder.grading.kernel.limits import set_environment, worker_env

    env = worker_env(dict(os.environ))
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    kept = dict(os.environ)
    # Started with Ctrl-C ignored, which it keeps across exec and hands to every
    # worker: Ctrl-C is the main process's to handle (it ends the workers).
    main = threading.current_thread() is threading.main_thread()
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        set_environment(env)
        forkserver.ensure_running()  # a no-op once it runs
    finally:
        set_environment(kept)
        if main:
            signal.signal(signal.SIGINT, interrupt)
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_start,
        initargs=(env, shared.handle() if shared is not None else None, os.getpid()),
    )


def shared_server(threads: int) -> SharedServer | None:
    """One warm kernel server for a pool's workers, started now (its imports
    run while the workers start), with the environment their kernels get:
    the allowed variables, with ``threads`` math threads. None where kernels
    cannot be forked."""
    from autograder.config.settings import python_on_path
    from autograder.grading.kernel import warmkernel
    from autograder.grading.kernel.limits import kernel_env, worker_env
    from autograder.grading.kernel.warmshare import SharedServer

    if not warmkernel.supported():
        return None
    env = worker_env(dict(os.environ))
    env.update({variable: str(threads) for variable in THREAD_VARIABLES})
    # a worker loads the course config, which puts this Python on its PATH
    env["PATH"] = python_on_path(env.get("PATH", ""))
    try:
        return SharedServer(kernel_env(env), multiprocessing.get_context("forkserver"))
    except OSError:  # the workers start their own
        return None


def _worker_start(env: dict[str, str], shared: Any = None, owner: int = 0) -> None:
    """A worker's first step: its environment and the batch's kernel server;
    Ctrl-C is the main process's to handle (it ends the workers), so a
    worker prints no traceback."""
    from autograder.grading.kernel import warmkernel
    from autograder.grading.kernel.limits import set_environment

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_environment(env)
    warmkernel.SHARED = shared
    watch = (os.getppid(), owner)
    threading.Thread(target=_orphaned, args=watch, daemon=True).start()


def _orphaned(parent: int, owner: int) -> None:
    """A worker's watch: once the process that made the pool has gone (a
    cluster worker killed, say) or its fork server has, it ends, and its
    kernel with it, instead of waiting for work forever."""
    while os.getppid() == parent:
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            break
        except PermissionError:  # alive, another user's: not ours to watch
            pass
        time.sleep(1.0)
    os._exit(1)


def stop_pool(pool: Executor) -> None:
    """End the pool's workers now: their jobs are graded again next time."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
