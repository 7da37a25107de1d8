"""``course grade --cluster``: the batch's jobs on a Dask cluster.

:class:`ClusterPool` is a ``concurrent.futures.Executor`` over a Dask
``Client``, so :func:`autograder.classgrade.batch.run` stores and publishes
its results exactly as the local pool's: the main process stays the only
writer. Each :class:`~autograder.classgrade.worker.Job` becomes one task,
:func:`autograder.classgrade.remote.grade_task`, with the submission's bytes
and its lesson's bundle's digest (the bundle is published on the scheduler
once; each worker machine fetches it once, :mod:`autograder.classgrade.remote`);
the worker's paths are its own.

- Results come back as JSON text, checked against the schema
  (:mod:`autograder.classgrade.wire`); the client deserializes task results
  with msgpack only, so a pickled result is refused, never loaded.
- Before any task: every worker must run this machine's version of the
  course, the same code and libraries, and confine kernels as this machine
  does (unless ``allow_weak_workers``).
- The scheduler marks a task failed once two workers died running it
  (``allowed_failures`` 1): that submission is an error, the batch goes on.
- Plain TCP to another machine is refused unless ``allow_plain_tcp``: use
  ``tls://`` with Dask's security settings (see the README).
"""

from __future__ import annotations

import ipaddress
import os
from concurrent.futures import Executor, Future
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from autograder.classgrade import remote, wire
from autograder.classgrade.batch import Halt
from autograder.classgrade.reports import Result
from autograder.classgrade.store import Graded
from autograder.classgrade.worker import Job, grade_job

#: Seconds to wait for the scheduler, and for a first worker.
CONNECT_TIMEOUT = 30


class ClusterLost(Halt):
    """The scheduler went away: the batch stops; a rerun grades the rest."""


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
            "tls:// address (README, 'Grading on a cluster'), or pass "
            "--allow-plain-tcp on a network you trust"
        )
    return "remote", text


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ClusterPool(Executor):
    """The jobs of a batch on a Dask cluster, as an ``Executor``.

    Raises:
        ValueError: the scheduler cannot be reached, it has no worker, or a
            worker lacks the course, runs other code, or confines less.
    """

    def __init__(
        self,
        address: str,
        *,
        confine: bool,
        allow_plain_tcp: bool = False,
        allow_weak_workers: bool = False,
        say: Any = None,
    ) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError(
                "--cluster needs Dask's distributed package: pip install "
                "'gpu-course[cluster]' (on this machine and every worker)"
            ) from None
        kind, where = parse(address, allow_plain_tcp)
        self.address, self.say = address, say or (lambda lines: None)
        self.cluster = _local_cluster(where) if kind == "local" else None
        try:
            self.client = Client(
                self.cluster or where,
                timeout=CONNECT_TIMEOUT,
                deserializers=["msgpack"],  # a task's result is text, never a pickle
                set_as_default=False,
            )
        except (OSError, TimeoutError) as exc:
            self._close_cluster()
            raise ValueError(
                f"--cluster {address}: cannot reach the Dask scheduler ({exc}); "
                "start it with `dask scheduler` and its workers with "
                "`dask worker ADDRESS --nthreads 1`"
            ) from None
        self.futures: dict[Any, Future] = {}
        self.bundles: dict[tuple[str, str], str] = {}
        self.closing, self.weak = False, allow_weak_workers
        try:
            self.expected = check_workers(
                self.client, address, confine, allow_weak_workers
            )
            self._tune()
        except BaseException:
            self.shutdown()
            raise

    # -- before any task ---------------------------------------------------------

    def _tune(self) -> None:
        """A submission whose worker died twice is an error (the scheduler's
        default lets it take down four), and no task waits on a worker behind
        another (:func:`remote.tune_scheduler`)."""
        try:
            self.client.run_on_scheduler(remote.tune_scheduler)
        except Exception as exc:  # noqa: BLE001 - the batch still runs
            self.say(
                [
                    f"note: the scheduler's settings are left as they are "
                    f"({type(exc).__name__}: {exc}); start it with "
                    "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 and "
                    "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION=1.0 so that a "
                    "submission that kills two workers is recorded as an error"
                ]
            )

    # -- the Executor ------------------------------------------------------------

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        """``submit(grade_job, job)``: the job as a task; other functions are
        refused (a task runs remote code by name)."""
        if fn is not grade_job or len(args) != 1 or kwargs:
            raise TypeError("a ClusterPool runs grade_job(job) only")
        job: Job = args[0]
        done: Future = Future()
        done.set_running_or_notify_cancel()
        if _too_large(job):  # graded here: it is never read
            done.set_result(grade_job(job))
            return done
        sha = self._bundle(job)
        sent = asdict(job)
        sent["require_namespaces"] = job.require_namespaces and not self.weak
        task = self.client.submit(
            remote.grade_task,
            sent,
            Path(job.path).read_bytes(),
            sha,
            self._slots(),
            self.expected,
            key=f"grade-{job.lesson}-{job.student}-{job.digest[:12]}",
            pure=False,
        )
        self.futures[task] = done
        task.add_done_callback(lambda task: self._resolve(task, job, done))
        return done

    def _resolve(self, task: Any, job: Job, done: Future) -> None:
        """A task's end, as the job's outcome."""
        self.futures.pop(task, None)
        if task.status == "cancelled":
            if self.closing:
                done.cancel()
            elif self.client.status != "running":
                done.set_exception(
                    ClusterLost(
                        f"the Dask scheduler at {self.address} went away; what was "
                        "graded is kept: run the same command again, once it is "
                        "back, to grade the rest"
                    )
                )
            else:
                done.set_result(_error(job, "the cluster cancelled its task"))
            return
        try:
            if task.status == "error":
                exc = task.exception()
                killed = type(exc).__name__ == "KilledWorker"
                why = (
                    "each grading worker that ran it died, twice: recorded as an "
                    "error, look at it by hand"
                    if killed
                    else f"the task failed: {type(exc).__name__}: {exc}"
                )
                graded = _error(job, why)
            else:
                graded = wire.from_json(
                    task.result(), job.student, job.lesson, job.digest
                )
        except Exception as exc:  # noqa: BLE001 - refused: an error for this one
            graded = _error(job, f"the worker sent a malformed result ({exc})")
        done.set_result(graded)

    def _bundle(self, job: Job) -> str:
        """The SHA-256 of the lesson's bundle for ``job``'s rules, published
        on the scheduler once (:func:`remote.install` fetches it)."""
        key = (job.lesson, job.root)
        if key not in self.bundles:
            import hashlib

            data = remote.bundle_for(job)
            sha = hashlib.sha256(data).hexdigest()
            self.client.publish_dataset(**{remote.dataset(sha): data}, override=True)
            self.bundles[key] = sha
        return self.bundles[key]

    def _slots(self) -> dict[str, int]:
        """Task slots by worker host, now."""
        slots: dict[str, int] = {}
        for address, info in self.client.scheduler_info()["workers"].items():
            host = urlparse(address).hostname or ""
            slots[host] = slots.get(host, 0) + int(info.get("nthreads", 1))
        return slots

    def slots(self) -> int:
        """The cluster's task slots (workers times their threads)."""
        return max(1, sum(self._slots().values()))

    def in_use(self) -> str:
        """``2 of 3 workers busy``, for the progress line."""
        try:
            busy = self.client.processing()
        except Exception:  # noqa: BLE001 - the scheduler may be gone
            return "workers: ?"
        return f"{sum(1 for keys in busy.values() if keys)} of {len(busy)} workers busy"

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.closing = True
        if cancel_futures and self.futures:
            try:
                self.client.cancel(list(self.futures))
            except Exception:  # noqa: BLE001 - the scheduler may be gone
                pass
        try:
            for sha in self.bundles.values():
                self.client.unpublish_dataset(remote.dataset(sha))
        except Exception:  # noqa: BLE001 - the scheduler may be gone
            pass
        try:
            self.client.close(timeout=10)
        except Exception:  # noqa: BLE001
            pass
        self._close_cluster()

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=20)
            except Exception:  # noqa: BLE001
                pass


def check_workers(
    client: Any, address: str, confine: bool, allow_weak: bool
) -> dict[str, Any]:
    """Every worker's course, code and confinement against this machine's;
    returns what each task checks again on its worker (one may join later).

    Raises:
        ValueError: no worker, or the first that lacks the course, runs other
            code, or confines less (unless ``allow_weak``), with what to do.
    """
    from importlib.metadata import version

    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        raise ValueError(
            f"--cluster {address}: the scheduler has no worker after "
            f"{CONNECT_TIMEOUT} s; start some with `dask worker "
            f"{address} --nthreads 1`"
        ) from None
    mine = version(remote.PACKAGE)
    found = client.run(version, remote.PACKAGE, on_error="return")
    for worker, theirs in sorted(found.items()):
        if not isinstance(theirs, str):
            raise ValueError(
                f"worker {worker} lacks the course package: install "
                f"{remote.PACKAGE}=={mine} there (the grader image), then "
                "restart it"
            )
        if theirs != mine:
            raise ValueError(
                f"worker {worker} runs {remote.PACKAGE} {theirs}, this "
                f"machine {mine}: install {remote.PACKAGE}=={mine} on every "
                "worker"
            )
    here = remote.facts()
    for worker, theirs in sorted(client.run(remote.facts).items()):
        for key, what in (("grader", "grader code"), ("library", "course "
                          "library, NumPy or torch")):  # fmt: skip
            if theirs[key] != here[key]:
                raise ValueError(
                    f"worker {worker} runs another {what} than this machine "
                    f"(the same {remote.PACKAGE} {mine}, other files): install "
                    "this machine's copy (the same commit and image) everywhere"
                )
        weaker = _weaker(here, theirs) if confine else ""
        if weaker and not allow_weak:
            raise ValueError(
                f"worker {worker} cannot confine grading kernels as this "
                f"machine does ({weaker}); give it what the README's "
                "'Grading on a cluster' lists (a Kubernetes pod: its "
                "securityContext), or pass --allow-weak-workers to grade "
                "there with less"
            )
    keys = ("version", "library", "grader")
    expected = {key: here[key] for key in keys}
    expected["landlock"] = here["landlock"] > 0 and confine and not allow_weak
    expected["namespaces"] = here["namespaces"] and confine and not allow_weak
    return expected


def _weaker(here: dict[str, Any], there: dict[str, Any]) -> str:
    """How a worker confines less than this machine ("" when it does not)."""
    missing = []
    if here["landlock"] > 0 and there["landlock"] == 0:
        missing.append("no Landlock")
    if here["namespaces"] and not there["namespaces"]:
        missing.append("no user namespaces")
    return ", ".join(missing)


def _error(job: Job, message: str) -> Graded:
    return Graded(
        Result(
            job.student, job.lesson, "error", digest=job.digest,
            message=message[:500], release=job.rules,
        )
    )  # fmt: skip


def _too_large(job: Job) -> bool:
    from autograder.classgrade.worker import _source_limit

    limit = _source_limit(job)
    path = Path(job.path)
    return bool(limit) and path.is_file() and path.stat().st_size > limit


def _local_cluster(workers: int) -> Any:
    """A ``LocalCluster`` of ``workers`` processes with one thread each,
    started with the allow-listed environment (the grader's secrets stay in
    this process)."""
    from distributed import LocalCluster

    from autograder.grading.kernel.limits import set_environment, worker_env

    kept = dict(os.environ)
    try:
        set_environment(worker_env(kept))
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=40,
        )
    finally:
        set_environment(kept)
