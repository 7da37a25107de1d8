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
  course, the same code and libraries, and confine kernels at least as this
  machine does (unless ``allow_weak_workers``); a worker that joins later and
  does not is refused by its first task, which stops the batch.
- At most one task per task slot is with the cluster at a time, and the
  scheduler marks a task failed once two workers died running it
  (``allowed_failures`` 1): that submission is an error, the batch goes on.
- Plain TCP to another machine is refused unless ``allow_plain_tcp``: use
  ``tls://`` with Dask's security settings (``docs/guides/running-a-class.md``).
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Executor, Future
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from autograder.classgrade import remote, wire
from autograder.classgrade.cluster_reach import CONNECT_TIMEOUT, local_cluster, parse
from autograder.classgrade.pool import Halt
from autograder.classgrade.worker import Job, failed, grade_job, over_limit


class ClusterLost(Halt):
    """The scheduler went away, or a worker refused to grade: the batch stops;
    a rerun grades the rest."""


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
        sandbox: bool,
        weak_confinement: bool = False,
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
        self.cluster = local_cluster(where) if kind == "local" else None
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
        self.lock = threading.Lock()
        self.futures: dict[Any, tuple[Job, Future]] = {}  # with the cluster
        self.waiting: deque[tuple[Job, Future]] = deque()  # not sent yet
        self.bundles: dict[tuple[str, str], str] = {}
        self.closing = self.halted = False
        self.sandbox = sandbox
        self.namespaces = not weak_confinement and not allow_weak_workers
        try:
            self.need = check_workers(
                self.client, address, sandbox, self.namespaces, allow_weak_workers
            )
            self._tune()
        except BaseException:
            self.shutdown()
            raise

    def _tune(self) -> None:
        """A submission whose worker died twice is an error (the scheduler's
        default lets it take down four: :func:`remote.tune_scheduler`)."""
        try:
            self.client.run_on_scheduler(remote.tune_scheduler)
        except Exception as exc:  # noqa: BLE001 - the batch still runs
            self.say(
                [
                    f"note: the scheduler's settings are left as they are "
                    f"({type(exc).__name__}: {exc}); start it with "
                    "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 so that a "
                    "submission that kills two workers is recorded as an error"
                ]
            )

    def prepare(self, jobs: list[Job]) -> None:
        """Make and publish every lesson bundle the jobs need, before any is
        sent (Ctrl-C works meanwhile)."""
        for job in jobs:
            if not over_limit(job):
                self._bundle(job)

    # -- the Executor ------------------------------------------------------------

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        """``submit(grade_job, job)``: the job, sent as a task once a task slot
        is free; other functions are refused (a task runs code by name)."""
        if fn is not grade_job or len(args) != 1 or kwargs:
            raise TypeError("a ClusterPool runs grade_job(job) only")
        job: Job = args[0]
        done: Future = Future()
        done.set_running_or_notify_cancel()
        if over_limit(job):  # graded here: it is never read
            done.set_result(grade_job(job))
            return done
        with self.lock:
            self.waiting.append((job, done))
            self._send()
        return done

    def _send(self) -> None:
        """Send waiting jobs while the cluster has a free task slot (with the
        lock held). One task a slot: a worker that dies holds one only."""
        slots = self._slots()
        while (
            self.waiting
            and not self.halted
            and len(self.futures) < max(1, sum(slots.values()))
        ):
            job, done = self.waiting.popleft()
            sent = replace(
                job,
                confine=self.sandbox,
                require_namespaces=job.require_namespaces and self.namespaces,
            )
            task = self.client.submit(
                remote.grade_task,
                asdict(sent),
                Path(job.path).read_bytes(),
                self._bundle(job),
                slots,
                self.need,
                key=f"grade-{job.lesson}-{job.student}-{job.digest[:12]}"
                f"-{job.rules[:8]}",
                pure=False,
            )
            self.futures[task] = (job, done)
            task.add_done_callback(self._resolve)

    def _resolve(self, task: Any) -> None:
        """A task's end, as its job's outcome; then the next job goes."""
        with self.lock:
            job, done = self.futures.pop(task, (None, None))
        if done is None or done.done():
            return
        try:
            outcome = self._outcome(task, job)
        except Halt as exc:
            self.halted = True
            done.set_exception(exc)
            return
        done.set_result(outcome)
        with self.lock:
            if not self.closing:
                self._send()

    def _outcome(self, task: Any, job: Job) -> Any:
        """The job's :class:`~autograder.classgrade.store.Graded`.

        Raises:
            ClusterLost: the scheduler is gone, or the worker refused.
        """
        from importlib.metadata import version

        if task.status == "cancelled":
            if self.client.status == "running":
                return failed(job, "the cluster cancelled its task")
            raise ClusterLost(
                f"the Dask scheduler at {self.address} went away; what was "
                "graded is kept: run the same command again, once it is back, "
                "to grade the rest"
            )
        if task.status == "error":
            exc = task.exception()
            if isinstance(exc, ImportError):  # the task's code is not there
                raise ClusterLost(
                    f"a worker lacks the course package ({exc}): install "
                    f"{remote.PACKAGE}=={version(remote.PACKAGE)} there"
                )
            if type(exc).__name__ == "KilledWorker":
                return failed(
                    job,
                    "each grading worker that ran it died, twice: "
                    "recorded as an error, look at it by hand",
                )
            return failed(job, f"the task failed: {type(exc).__name__}: {exc}")
        try:
            graded, refused = wire.from_json(
                task.result(), job.student, job.lesson, job.digest, job.rules
            )
        except Exception as exc:  # noqa: BLE001 - refused: an error for this one
            return failed(job, f"the worker sent a malformed result ({exc})")
        if refused:
            raise ClusterLost(f"a worker refused to grade: {refused}")
        return graded

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
        with self.lock:
            self.closing = True
            self.waiting.clear()
            sent = list(self.futures)
        if cancel_futures and sent:
            try:
                self.client.cancel(sent)
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
    client: Any, address: str, sandbox: bool, namespaces: bool, allow_weak: bool
) -> dict[str, Any]:
    """Every worker's course, code and confinement against what the batch
    needs (:func:`remote.needs`); returns that need, which each task checks
    again on its worker (one may join later).

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
    strict = sandbox and not allow_weak
    need = remote.needs(strict, namespaces and strict)
    for worker, theirs in sorted(client.run(remote.facts).items()):
        kind, why = remote.unlike(need, theirs)
        if kind == "code":
            raise ValueError(f"worker {worker}: {why}")
        if kind:
            raise ValueError(
                f"worker {worker} cannot confine grading kernels as this batch "
                f"needs ({why}); give it what 'Grading on a cluster' "
                "(docs/guides/running-a-class.md) lists (a Kubernetes pod: its "
                "securityContext), or pass --allow-weak-workers to grade there "
                "with less"
            )
    return need
