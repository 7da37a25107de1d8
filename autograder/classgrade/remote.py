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
_PLACED: set[str] = set()  # bundles whose records this process put in place


#: Libraries whose versions must match everywhere (the grading chain's).
LIBRARIES = ("nbgrader", "nbclient", "nbformat", "ipykernel", "jupyter_client")


def facts() -> dict[str, Any]:
    """What the main process compares before it sends work: the course's
    version and code, the grading libraries, and how kernels are confined."""
    import platform
    from importlib.metadata import version

    from autograder.config.settings import library_fingerprint
    from autograder.grading.kernel import namespaces
    from autograder.grading.kernel import sandbox as landlock

    grader = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.py")):
        grader.update(str(path.relative_to(root)).encode())
        grader.update(path.read_bytes())
    versions = {name: version(name) for name in LIBRARIES}
    versions["python"] = platform.python_version()
    return {
        "version": version(PACKAGE),
        "library": library_fingerprint(),
        "grader": grader.hexdigest(),
        "versions": versions,
        "landlock": landlock.abi(),
        "namespaces": namespaces.available(),
    }


def needs(confine: bool, namespaces: bool) -> dict[str, Any]:
    """What a worker must have to grade this batch: this machine's course,
    code and libraries; with ``confine``, Landlock of this machine's ABI or
    later (4 at least: kernels open no TCP connection); with ``namespaces``,
    user namespaces for kernels."""
    here = facts()
    need = {key: here[key] for key in ("version", "library", "grader", "versions")}
    need["landlock"] = max(here["landlock"], 4) if confine else 0
    need["namespaces"] = namespaces
    return need


def unlike(need: dict[str, Any], there: dict[str, Any]) -> tuple[str, str]:
    """How a worker's :func:`facts` fall short of :func:`needs`: ("code" or
    "confinement", what to do), or ("", "")."""
    if there["version"] != need["version"]:
        return "code", (
            f"it runs {PACKAGE} {there['version']}, this machine "
            f"{need['version']}: install {PACKAGE}=={need['version']} there"
        )
    mine = need["versions"]
    other = [
        f"{k} {v} (here {mine.get(k)})"
        for k, v in there["versions"].items()
        if mine.get(k) != v
    ]
    if other:
        return "code", f"it runs other libraries: {', '.join(other)}"
    for key, what in (
        ("grader", "grader code"),
        ("library", "course library, NumPy or torch"),
    ):
        if there[key] != need[key]:
            return "code", (
                f"it runs another {what} than this machine (the same "
                f"{PACKAGE} {need['version']}, other files): install this "
                "machine's copy (the same commit and image) there"
            )
    if there["landlock"] < need["landlock"]:
        return "confinement", (
            f"Landlock ABI {there['landlock']} (0: none), where {need['landlock']} "
            "or later is needed"
        )
    if need["namespaces"] and not there["namespaces"]:
        return "confinement", "no user namespaces for kernels"
    return "", ""


def tune_scheduler(dask_scheduler: Any = None) -> int:
    """On the scheduler: a task whose worker died twice is marked failed
    (``allowed_failures`` 1; Dask's default lets it take down four workers).
    Returns the earlier setting."""
    before = dask_scheduler.allowed_failures
    dask_scheduler.allowed_failures = 1
    return before


# -- bundles -------------------------------------------------------------------


def make_bundle(
    name: str, course: Path, cells: Path, source: Path, release: Path, measured: Path
) -> bytes:
    """One lesson's release for the workers, as a tar archive: the same bytes
    for the same files (names sorted, times and owners zeroed)."""
    members = {
        f"course/{p.relative_to(course)}": p
        for edition in ("notebooks", "notebooks-zh")
        for p in sorted((course / edition / name).rglob("*"))
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
    from autograder.lessons.releases import Release

    release = Release(job.lesson, Path(job.root) if job.root else None)
    measured_reference(release)
    notebook = release.notebook_root / "notebooks" / job.lesson
    return make_bundle(
        job.lesson,
        Path(job.course),
        Path(job.cells),
        release.source,
        notebook / f"{job.lesson}.ipynb",
        measured_cache(release),
    )


def bundles_dir() -> Path:
    """Where a worker keeps the bundles it was sent."""
    from autograder.config.settings import cache_root

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
    from autograder.config.settings import locked

    folder = bundles_dir() / sha
    if sha in _PLACED:  # this process has it in place: no hashing per task
        return folder
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
    _PLACED.add(sha)
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
    from autograder.lessons.releases import Release

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    name = manifest["lesson"]
    with _POOL_LOCK:
        target = measured_cache(Release(name, folder / "release"))
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
    need: dict[str, Any],
) -> str:
    """A Dask task: grade one submission in this worker's pool; return the
    outcome as JSON text (:mod:`autograder.classgrade.wire`), whatever happens.
    ``slots``: task slots by worker host, for the math threads a job gets;
    ``need``: what the batch needs of a worker (:func:`needs`), checked here
    too, for a worker may have joined after the batch's check: one unlike it
    refuses, which stops the batch."""
    from autograder.classgrade import wire
    from autograder.classgrade.worker import Job, failed

    sent = Job(**job)
    with _POOL_LOCK:
        if "facts" not in _POOL:
            _POOL["facts"] = facts()
    kind, why = unlike(need, _POOL["facts"])
    if kind:
        return wire.to_json(failed(sent, why), refused=f"{_worker_name()}: {why}")
    scratch = Path(tempfile.mkdtemp(prefix="course-cluster-job-"))
    try:
        local = _local_job(sent, notebook, install(sha), slots, scratch)
        return _pool(local.threads).submit(_child, asdict(local)).result()
    except Exception as exc:  # noqa: BLE001 - an error for this submission
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(exc, BrokenProcessPool):
            _drop_pool()  # the next task starts a fresh one
        message = f"on worker {_worker_name()}: {type(exc).__name__}: {exc}"
        return wire.to_json(failed(sent, message))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _child(job: dict[str, Any]) -> str:
    """In the pool's process: the job graded, as JSON text."""
    from autograder.classgrade import wire
    from autograder.classgrade.worker import Job, grade_job

    return wire.to_json(grade_job(Job(**job)))


def _local_job(
    job: Any, notebook: bytes, folder: Path, slots: dict, scratch: Path
) -> Any:
    """The job with this worker's paths (the bundle's course, cells and
    release; the submission written to a scratch folder of its own) and its
    math threads: this machine's cores over the task slots on it."""
    from urllib.parse import urlparse

    from distributed import get_worker

    from autograder.grading.kernel import sandbox as landlock

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
        confine=job.confine and landlock.abi() > 0,
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


def _drop_pool() -> None:
    """End this worker's grading pool and its kernel server (a broken pool,
    or the worker closing)."""
    with _POOL_LOCK:
        pool, shared = _POOL.pop("pool", None), _POOL.pop("shared", None)
    if pool is not None:
        from autograder.classgrade.pool import stop_pool

        stop_pool(pool)
    if shared is not None:
        shared.close()


class _Teardown:
    """Ends the grading pool and its kernel server with the Dask worker
    (``Worker.close`` calls each plugin's ``teardown``)."""

    def teardown(self, worker: Any) -> None:
        _drop_pool()
