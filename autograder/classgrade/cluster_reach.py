"""How ``course grade --cluster`` reaches its cluster: the address read
(:func:`parse`: ``local:N``, ``tls://``, or plain TCP to this machine only)
and a local cluster started (:func:`local_cluster`)."""

from __future__ import annotations

import ipaddress
import os
import signal
import threading
from typing import Any
from urllib.parse import urlparse

#: Seconds to wait for the scheduler, and for a first worker.
CONNECT_TIMEOUT = 30


def parse(address: str, allow_plain_tcp: bool = False) -> tuple[str, Any]:
    """``("local", N)`` for ``local:N``, else ``("remote", URL)``.

    Raises:
        ValueError: a malformed address, or plain TCP to another machine
            without ``allow_plain_tcp``.
    """
    text = address.strip()
    if text.startswith("local:"):
        count = text.split(":", 1)[1]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(
                f"--cluster {address}: local:N takes a number of workers, e.g. local:4"
            )
        return "local", int(count)
    if "://" not in text:
        text = f"tcp://{text}"
    url = urlparse(text)
    if url.scheme not in ("tcp", "tls") or not url.hostname:
        raise ValueError(
            f"--cluster {address}: give a Dask scheduler address "
            "(tls://host:8786 or tcp://host:8786) or local:N"
        )
    if url.scheme == "tcp" and not _loopback(url.hostname) and not allow_plain_tcp:
        raise ValueError(
            f"--cluster {address}: plain TCP to another machine sends submissions, "
            "the lesson's reference records and the grades unencrypted and "
            "unauthenticated. Run the scheduler and workers with TLS and give a "
            "tls:// address (docs/guides/running-a-class.md, 'Grading on a "
            "cluster'), or pass --allow-plain-tcp on a network you trust"
        )
    return "remote", text


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_cluster(workers: int) -> Any:
    """A ``LocalCluster`` of ``workers`` processes with one thread each, on
    TLS with a throwaway certificate (another user of this machine cannot
    join it), started with the allow-listed environment (the grader's secrets
    stay in this process) and Ctrl-C ignored (it is the main process's)."""
    from distributed import LocalCluster

    from autograder.grading.kernel.limits import set_environment, worker_env

    kept = dict(os.environ)
    main = threading.current_thread() is threading.main_thread()
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        set_environment(worker_env(kept))
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=40,
            security=True,
        )
    finally:
        set_environment(kept)
        if main:
            signal.signal(signal.SIGINT, interrupt)
