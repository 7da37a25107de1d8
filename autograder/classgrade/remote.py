"""A cluster worker's side of ``course grade --cluster``: its facts, its lesson
bundles, and one task per submission.

The main process (:mod:`autograder.classgrade.cluster`) publishes each
lesson's *bundle* on the scheduler (the released template, the cells, the
lesson's source and the reference records; :func:`make_bundle`), and sends one
:func:`grade_task` per submission with the bundle's SHA-256. A worker machine
fetches a bundle the first time it needs it and keeps it under the grader's
cache by that digest (:func:`install`), where grading kernels cannot read it
(:mod:`autograder.grading.kernel.sandbox`): a bundle crosses the network once
per worker machine, not at all on a later run, and a worker that dies takes
nothing with it that others need (scattered data would be lost with it).

A task grades in a child process: the same pool the local ``--jobs`` uses
(:func:`autograder.classgrade.pool.worker_pool`, one process per worker
thread, forked from a server with the allow-listed environment), since a job
caps its own process's memory and sets its environment. The child returns the
outcome as JSON text (:mod:`autograder.classgrade.wire`); so does the task.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
import threading
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

#: The Python distribution a worker needs, as ``importlib.metadata`` names it.
PACKAGE = "gpu-course"

_POOL: dict[str, Any] = {}
_POOL_LOCK = threading.Lock()


def facts() -> dict[str, Any]:
    """What the main process compares before it sends work: the course's
    version and code, and how kernels are confined here."""
    import platform
    from importlib.metadata import version

    from autograder.config.scratch import library_fingerprint
    from autograder.grading.kernel import namespaces
    from autograder.grading.kernel import sandbox as landlock

    grader = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.py")):
        grader.update(str(path.relative_to(root)).encode())
        grader.update(path.read_bytes())
    return {
        "version": version(PACKAGE),
        "library": library_fingerprint(),
        "grader": grader.hexdigest(),
        "python": platform.python_version(),
        "landlock": landlock.abi(),
        "namespaces": namespaces.available(),
        "cpus": os.cpu_count() or 1,
        "host": platform.node(),
    }


def tune_scheduler(dask_scheduler: Any = None) -> list[float]:
    """On the scheduler: a task whose worker died twice is marked failed
    (``allowed_failures`` 1), and a worker holds one task per thread, no more
    (``worker-saturation`` 1.0: a task waiting behind a poisoned one is not
    counted as a suspect when its worker dies). Returns the earlier settings."""
    before = [dask_scheduler.allowed_failures, dask_scheduler.WORKER_SATURATION]
    dask_scheduler.allowed_failures = 1
    dask_scheduler.WORKER_SATURATION = 1.0
    return before


# -- bundles -------------------------------------------------------------------


def make_bundle(
    name: str, course: Path, cells: Path, source: Path, release: Path, measured: Path
) -> bytes:
    """One lesson's release for the workers, as a tar archive: the same bytes
    for the same files (names sorted, times and owners zeroed)."""
    members = {
        f"course/notebooks/{name}/{p.relative_to(course / 'notebooks' / name)}": p
        for p in sorted((course / "notebooks" / name).rglob("*"))
        if p.is_file()
    }
    members["cells.json"] = cells
    members[f"release/solutions/{name}/{name}.py"] = source
    members[f"release/notebooks/{name}/{name}.ipynb"] = release
    members["measured.json"] = measured
    manifest = json.dumps({"lesson": name, "measured": measured.name}).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for arcname, data in [("manifest.json", manifest)] + [
            (k, members[k].read_bytes()) for k in sorted(members)
        ]:
            info = tarfile.TarInfo(arcname)
            info.size, info.mode = len(data), 0o600
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def bundle_for(job: Any) -> bytes:
    """The bundle of a :class:`~autograder.classgrade.worker.Job`'s lesson,
    under its rules, on the main machine (its reference records made first)."""
    from autograder.grading.reference import measured_cache, measured_reference
    from autograder.lessons import find_lesson, releases

    root = Path(job.root) if job.root else None
    with releases.used(job.lesson, root):
        measured_reference(job.lesson)
        source = find_lesson(job.lesson)
        notebook = releases.notebook_root(job.lesson) / "notebooks" / job.lesson
        return make_bundle(
            job.lesson,
            Path(job.course),
            Path(job.cells),
            source,
            notebook / f"{job.lesson}.ipynb",
            measured_cache(job.lesson),
        )


def bundles_dir() -> Path:
    """Where a worker keeps the bundles it was sent."""
    from autograder.config.scratch import cache_root

    return cache_root() / "cluster"


def dataset(sha: str) -> str:
    """The name a bundle is published under on the scheduler."""
    return f"course-bundle-{sha}"


def install(sha: str) -> Path:
    """The bundle ``sha`` unpacked under :func:`bundles_dir`, fetched from the
    scheduler the first time this machine needs it, with its reference
    records where grading looks for them.

    Raises:
        ValueError: the bundle's bytes are not the ones sent, or its records
            do not match this worker's copy of the course.
    """
    from autograder.config.scratch import locked

    folder = bundles_dir() / sha
    if not (folder / "manifest.json").is_file():
        with locked(bundles_dir() / f"{sha}.lock"):
            if not (folder / "manifest.json").is_file():
                from distributed import get_client

                bundle = get_client().get_dataset(dataset(sha))
                if hashlib.sha256(bundle).hexdigest() != sha:
                    raise ValueError("a lesson bundle arrived damaged")
                work = Path(tempfile.mkdtemp(prefix=f".{sha[:12]}-", dir=bundles_dir()))
                try:
                    with tarfile.open(fileobj=io.BytesIO(bundle)) as tar:
                        _extract(tar, work)
                    shutil.rmtree(folder, ignore_errors=True)
                    os.replace(work, folder)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
    _place_records(folder)
    return folder


def _extract(tar: tarfile.TarFile, folder: Path) -> None:
    """Every member, as plain files inside ``folder`` only."""
    for member in tar.getmembers():
        target = (folder / member.name).resolve()
        if not member.isfile() or folder.resolve() not in target.parents:
            raise ValueError(f"a lesson bundle holds {member.name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(tar.extractfile(member).read())


def _place_records(folder: Path) -> None:
    """Put the bundle's reference records where this worker's grading reads
    them: the path it computes from its own copy of the course."""
    from autograder.grading.reference import measured_cache
    from autograder.lessons import releases

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    name = manifest["lesson"]
    with releases.used(name, folder / "release"):
        target = measured_cache(name)
    if target.name != manifest["measured"]:
        raise ValueError(
            f"{name}: this worker's copy of the course differs from the grading "
            f"machine's (its reference key is {target.name}, the bundle's "
            f"{manifest['measured']}): install the same version of {PACKAGE}, "
            "with the same NumPy and torch, on every worker"
        )
    if not target.is_file():
        from autograder.classgrade.store import write_text

        write_text(target, (folder / "measured.json").read_text(encoding="utf-8"))


# -- one task --------------------------------------------------------------------


def grade_task(
    job: dict[str, Any],
    notebook: bytes,
    sha: str,
    slots: dict[str, int],
    expected: dict[str, Any],
) -> str:
    """A Dask task: grade one submission in this worker's pool; return the
    outcome as JSON text (:mod:`autograder.classgrade.wire`), whatever happens.
    ``slots``: task slots by worker host, for the math threads a job gets;
    ``expected``: the main machine's course and confinement (a worker that
    joined after the batch's check is checked here)."""
    from autograder.classgrade import wire
    from autograder.classgrade.reports import Result
    from autograder.classgrade.store import Graded
    from autograder.classgrade.worker import Job

    try:
        _check(expected)
        folder = install(sha)
        local = _local_job(Job(**job), notebook, folder, slots)
        return _pool(local.threads).submit(_child, asdict(local)).result()
    except Exception as exc:  # noqa: BLE001 - an error for this submission
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(exc, BrokenProcessPool):
            _POOL.pop("pool", None)  # the next task starts a fresh one
        result = Result(
            job["student"], job["lesson"], "error", digest=job["digest"],
            message=f"on worker {_worker_name()}: {type(exc).__name__}: {exc}"[:500],
            release=job["rules"],
        )  # fmt: skip
        return wire.to_json(Graded(result))


def _check(expected: dict[str, Any]) -> None:
    """Refuse to grade on a worker unlike the main machine.

    Raises:
        ValueError: what differs, and what to do.
    """
    with _POOL_LOCK:
        if "facts" not in _POOL:
            _POOL["facts"] = facts()
    here = _POOL["facts"]
    for key in ("version", "library", "grader"):
        if here[key] != expected[key]:
            raise ValueError(
                f"this worker's course ({key}) differs from the grading machine's: "
                f"install the same {PACKAGE} (the same commit and image) here"
            )
    if expected["landlock"] and not here["landlock"]:
        raise ValueError("this worker has no Landlock to confine kernels with")
    if expected["namespaces"] and not here["namespaces"]:
        raise ValueError("this worker cannot give kernels user namespaces")


def _child(job: dict[str, Any]) -> str:
    """In the pool's process: the job graded, as JSON text."""
    from autograder.classgrade import wire
    from autograder.classgrade.worker import Job, grade_job

    local = Job(**job)
    try:
        return wire.to_json(grade_job(local))
    finally:
        shutil.rmtree(Path(local.workdir).parent, ignore_errors=True)


def _local_job(job: Any, notebook: bytes, folder: Path, slots: dict) -> Any:
    """The job with this worker's paths (the bundle's course, cells and
    release; the submission written to a scratch folder of its own) and its
    math threads: this machine's cores over the task slots on it."""
    from urllib.parse import urlparse

    from distributed import get_worker

    scratch = Path(tempfile.mkdtemp(prefix="course-cluster-job-"))
    path = scratch / f"{job.lesson}.ipynb"
    path.write_bytes(notebook)
    worker = get_worker()
    here = slots.get(urlparse(worker.address).hostname, worker.state.nthreads)
    return replace(
        job,
        path=str(path),
        course=str(folder / "course"),
        cells=str(folder / "cells.json"),
        workdir=str(scratch / "work"),
        root=str(folder / "release"),
        threads=max(1, (os.cpu_count() or 1) // max(int(here), 1)),
    )


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "?"


def _pool(threads: int) -> Any:
    """This worker's grading pool: one process per task slot, made once."""
    from distributed import get_worker

    from autograder.classgrade.pool import shared_server, worker_pool

    with _POOL_LOCK:
        if "pool" not in _POOL:
            import multiprocessing

            # A Nanny starts its worker as a daemonic process, which
            # multiprocessing forbids children; the pool's processes watch for
            # this worker's end themselves (pool._worker_start).
            multiprocessing.current_process().daemon = False
            slots = get_worker().state.nthreads
            shared = shared_server(threads)
            _POOL["pool"] = worker_pool(slots, shared=shared)
            _POOL["shared"] = shared
            get_worker().plugins["course-grading-pool"] = _Teardown()
        return _POOL["pool"]


class _Teardown:
    """Ends the grading pool and its kernel server with the Dask worker
    (``Worker.close`` calls each plugin's ``teardown``)."""

    def teardown(self, worker: Any) -> None:
        with _POOL_LOCK:
            pool, shared = _POOL.pop("pool", None), _POOL.pop("shared", None)
        if pool is not None:
            from autograder.classgrade.pool import stop_pool

            stop_pool(pool)
        if shared is not None:
            shared.close()
