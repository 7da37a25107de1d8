"""One job: grade one submission, in a worker process, and return the outcome as data.

The job runs the course's grading chain on the submission in memory
(:func:`autograder.grading.chain.run.autograde`: the steps ``nbgrader autograde``
runs, from the same config, without its gradebook), reads the scores as
nbgrader's ``SaveAutoGrades`` would, and renders the feedback page. It
returns a :class:`~autograder.classgrade.store.Graded`: the typed result,
the graded notebook and the page, as text. It writes nothing the batch
keeps: the main process stores what it returns
(:mod:`autograder.classgrade.store`) and alone writes the course gradebook.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import nbformat

from autograder.classgrade.reports import Result
from autograder.classgrade.store import Graded
from autograder.grading.kernel.forked import KERNEL_START_FAILED
from autograder.lessons.conventions import LessonId, grade_id, nbgrader_meta
from autograder.lessons.releases import Release

#: Failures a job tries once more, cold, for they may not be the submission's:
#: the kernel died before it ran a line of it (a fork under heavy load), or the
#: client read a malformed message (the IOPub gate replaces those with a notice,
#: :mod:`autograder.grading.chain.iopub_gate`; this covers kernels without it).
NOT_THE_SUBMISSIONS = (KERNEL_START_FAILED, "Invalid Signature")

#: The math libraries' thread counts, which a job sets for its kernel.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to grade one submission (plain data)."""

    student: str
    lesson: str
    path: str
    digest: str
    course: str  # the jobs' course root for the lesson: its release, read only
    cells: str  # the lesson's cells as its gradebook has them (JSON)
    workdir: str  # this job's scratch folder, removed when it ends
    timeout: int
    memory_mb: int
    threads: int
    warm: bool
    confine: bool
    require_namespaces: bool = True  # False: --allow-weak-confinement
    #: the kept release whose rules grade it (:mod:`autograder.lessons.releases`);
    #: "": the repository's own lesson
    root: str = ""
    rules: str = ""  # that release's digest (the current one's when root is "")
    #: render the feedback page (False: the batch renders it from the
    #: course gradebook once the result is recorded there)
    page: bool = True
    #: what the instructor's config sets over the course's own (plain data,
    #: :func:`autograder.config.settings.job_settings`)
    settings: dict = field(default_factory=dict)

    @property
    def release(self) -> Path:
        """The lesson's released notebook."""
        return Path(self.course) / "notebooks" / self.lesson / f"{self.lesson}.ipynb"


def limit_resources(memory_mb: int) -> None:
    """Cap address space and file size; no address-space cap with an NVIDIA GPU.

    CUDA reserves far more virtual address space than it uses, so an
    address-space limit would stop every GPU kernel from starting.
    """
    if memory_mb <= 0 or os.path.exists("/dev/nvidia0"):
        memory_mb = 0
    try:
        import resource

        if memory_mb:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        big = 512 * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (big, big))
    except (ImportError, ValueError, OSError):
        pass


def grade_job(job: Job) -> Graded:
    """Grade one submission; return the result, notebook and page as data."""
    start = time.perf_counter()
    graded = Graded(
        Result(job.student, job.lesson, "error", digest=job.digest, release=job.rules)
    )
    try:
        _grade(job, graded)
    except Exception as exc:  # noqa: BLE001 - one submission never stops the batch
        graded.result.status = "error"
        graded.result.message = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        graded.result.seconds = time.perf_counter() - start
        shutil.rmtree(job.workdir, ignore_errors=True)
    return graded


def failed(job: Job, message: str) -> Graded:
    """An error for ``job``'s submission, saying why."""
    return Graded(
        Result(
            job.student,
            job.lesson,
            "error",
            digest=job.digest,
            message=message[:500],
            release=job.rules,
        )
    )


def over_limit(job: Job) -> bool:
    """Whether the submission is over the course's size limit (it is then
    never read: :func:`grade_job` marks it too large at once)."""
    path, limit = Path(job.path), _source_limit(job)
    return bool(limit) and path.is_file() and path.stat().st_size > limit


def _source_limit(job: Job) -> int:
    """The course's ``GradingExecute.max_source_bytes`` (0: no limit)."""
    from autograder.grading.chain.execute import source_limit

    return source_limit(_config(job))


def _too_large(release: Any, result: Result, size: int, limit: int) -> None:
    """A submission over the size limit: every test cell 0, with the reason."""
    result.status = "too-large"
    result.message = (
        f"not graded: the notebook is {size:,} bytes, over the limit of "
        f"{limit:,}; clear its outputs (Kernel > Restart Kernel and Clear All "
        "Outputs), remove any data pasted into cells, save and submit again"
    )
    for cell in release.cells:
        gid, meta = grade_id(cell), nbgrader_meta(cell)
        if gid and meta.get("grade") and not meta.get("solution"):
            result.per_question[gid] = [0.0, float(meta.get("points", 0))]
            result.hints[gid] = "NotebookTooLarge: " + result.message


def _read_submission(job: Job, release: Any, result: Result) -> Any | None:
    """The submitted notebook, or None with the result's status set."""
    path = Path(job.path)
    size, limit = (path.stat().st_size if path.is_file() else 0), _source_limit(job)
    if limit and size > limit:  # never parsed: reading it is the cost
        _too_large(release, result, size, limit)
        return None
    try:
        with warnings_silenced():
            submitted = nbformat.read(Path(job.path), as_version=4)
        if not isinstance(submitted.get("cells"), list):
            raise ValueError("no cells")
    except Exception as exc:  # noqa: BLE001 - invalid JSON, empty file, not a notebook
        result.status = "unreadable"
        result.message = f"not a readable notebook: {type(exc).__name__}: {exc}"[:300]
        return None
    lessons = {
        digits
        for c in submitted.cells
        if (gid := grade_id(c)) and (digits := LessonId.digits_of(gid))
    }
    if lessons and LessonId(job.lesson).digits not in lessons:
        result.status = "wrong-lesson"
        other = sorted(lessons)[0]
        result.message = f"this notebook belongs to Day {other}, not {job.lesson}"
        return None
    return submitted


class warnings_silenced:
    """nbformat warns about duplicate cell ids, which reassembly handles."""

    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: Any) -> None:
        self._catch.__exit__(*exc)


def _config(job: Job) -> Any:
    """The course's grading config, rooted at the lesson's course, with this
    job's kernel settings."""
    from autograder.config.settings import grading_config

    config = grading_config(Path(job.course), job.settings)
    config.GradingExecute.timeout = job.timeout
    config.GradingExecute.warm = job.warm
    config.GradingExecute.confine = job.confine
    config.GradingExecute.require_namespaces = job.require_namespaces
    return config


def _grade(job: Job, graded: Graded) -> None:
    result = graded.result
    release = nbformat.read(job.release, as_version=4)
    result.max_score = float(
        sum(
            nbgrader_meta(c).get("points", 0)
            for c in release.cells
            if nbgrader_meta(c).get("grade")
        )
    )
    submitted = _read_submission(job, release, result)
    if submitted is None:
        return
    limit_resources(job.memory_mb)
    for variable in THREAD_VARIABLES:
        os.environ[variable] = str(job.threads)
    from autograder.grading.kernel.warmkernel import LAUNCHED

    before = dict(LAUNCHED)
    executed, failure = _autograde(job, submitted)
    if executed is None and any(why in failure for why in NOT_THE_SUBMISSIONS):
        # not the student's doing, so once more, from scratch
        executed, failure = _autograde(replace(job, warm=False), submitted)
    started = [k for k in ("shared", "warm", "cold") if LAUNCHED[k] > before[k]]
    result.kernel = started[0] if started else ""
    if executed is None:
        result.message = failure[:500]
        return
    from autograder.grading.chain.run import cell_scores
    from autograder.grading.feedback import render_page

    found = executed.metadata.get("course", {})
    result.flags = list(found.get("flags", []))
    result.review = list(found.get("review", []))
    result.verdict_seconds = float(found.get("verdict_seconds", 0.0))
    from autograder.grading.result_nodes import clip

    result.hints = {
        gid: clip(v["message"], 400)
        for gid, v in found.get("verdicts", {}).items()
        if not v.get("passed")
    }
    scores = cell_scores(executed)
    result.per_question = {
        gid: [auto or 0.0, top] for gid, (auto, top) in scores.items()
    }
    result.manual = sorted(gid for gid, (auto, _) in scores.items() if auto is None)
    result.score = float(sum(score for score, _ in result.per_question.values()))
    result.max_score = float(sum(top for _, top in result.per_question.values()))
    graded.notebook = nbformat.writes(executed)
    if job.page:
        graded.page = render_page(executed, job.student, job.lesson)
    result.status = "graded"


def _autograde(job: Job, submitted: Any) -> tuple[Any | None, str]:
    """Run the grading chain; return (graded notebook, "") or (None, why not)."""
    import copy

    from autograder.grading.chain.run import autograde

    workdir = Path(job.workdir) / ("warm" if job.warm else "cold")
    try:
        with warnings_silenced():
            executed, _ = autograde(
                copy.deepcopy(submitted),
                _config(job),
                student=job.student,
                lesson=job.lesson,
                workdir=workdir,
                cells=json.loads(Path(job.cells).read_text(encoding="utf-8")),
                release=Release(job.lesson, Path(job.root) if job.root else None),
            )
    except Exception as exc:  # noqa: BLE001 - reported as the submission's error
        return None, f"{type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return executed, ""
