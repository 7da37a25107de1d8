"""One job: grade one submission in a job folder of its own, in a worker process.

The job folder is a copy of a template course (the gradebook with the lesson's
cells, and the released notebook) holding this one submission. Grading is plain
``nbgrader autograde`` with the course's configuration: the chain in
:mod:`autograder.chain` reassembles, runs and judges the notebook. The result is
written to ``results/<assignment>/<student>.json`` whatever happens, so an
interrupted batch loses nothing that finished.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import nbformat

from autograder.classgrade.reports import Result
from autograder.conventions import LessonId, grade_id, nbgrader_meta
from autograder.forked import KERNEL_START_FAILED


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to grade one submission (picklable)."""

    student: str
    lesson: str
    path: str
    digest: str
    template: str  # a course folder with the gradebook and the released notebook
    release: str  # the released notebook
    jobdir: str
    out: str
    timeout: int
    memory_mb: int
    threads: int
    warm: bool
    confine: bool
    require_namespaces: bool = True  # False: --allow-weak-confinement

    @property
    def result_file(self) -> Path:
        """Where this job's result is written."""
        return Path(self.out) / "results" / self.lesson / f"{self.student}.json"

    @staticmethod
    def result_path(out: Path, result: Result) -> Path:
        """Where a result is stored under an output folder."""
        return Path(out) / "results" / result.lesson / f"{result.student}.json"


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


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write JSON atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def failure_reason(log: str, limit: int = 500) -> str:
    """What went wrong, from nbgrader's log: its first errors, not its last lines.

    nbgrader ends every failure with the same "see the above traceback" lines;
    the cause (a kernel that never answered, a notebook it cannot read) is in
    the first ``[ERROR]`` line and the exception at the end of its traceback.
    """
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[ERROR]")]
    causes = [
        line
        for line in lines
        if not line.startswith("[")
        and ("Error:" in line or "Exception:" in line)
        and "NbGraderException" not in line
    ]
    picked = errors[:1] + causes[-1:]
    return "\n".join(picked)[:limit] if picked else log[-limit:]


def grade_job(job: Job) -> Result:
    """Grade one submission; write its result file and return the result."""
    import warnings

    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)
    start = time.perf_counter()
    result = Result(job.student, job.lesson, "error", digest=job.digest)
    try:
        _grade(job, result)
    except Exception as exc:  # noqa: BLE001 - one submission never stops the batch
        result.status = "error"
        result.message = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        result.seconds = time.perf_counter() - start
        write_json(job.result_file, asdict(result))
        shutil.rmtree(job.jobdir, ignore_errors=True)
    return result


def _source_limit(job: Job) -> int:
    """The course's ``GradingExecute.max_source_bytes`` (0: no limit)."""
    from autograder.chain.execute import source_limit
    from autograder.scratch import grading_config

    return source_limit(grading_config(Path(job.template)))


def _too_large(job: Job, result: Result, size: int, limit: int) -> None:
    """A submission over the size limit: every test cell 0, with the reason."""
    result.status = "too-large"
    result.message = (
        f"not graded: the notebook is {size:,} bytes, over the limit of "
        f"{limit:,}; clear its outputs (Kernel > Restart Kernel and Clear All "
        "Outputs), remove any data pasted into cells, save and submit again"
    )
    release = nbformat.read(Path(job.release), as_version=4)
    for cell in release.cells:
        gid, meta = grade_id(cell), nbgrader_meta(cell)
        if gid and meta.get("grade") and not meta.get("solution"):
            result.per_question[gid] = [0.0, float(meta.get("points", 0))]
            result.hints[gid] = "NotebookTooLarge: " + result.message


def _read_submission(job: Job, result: Result) -> Any | None:
    """The submitted notebook, or None with the result's status set."""
    path = Path(job.path)
    size, limit = (path.stat().st_size if path.is_file() else 0), _source_limit(job)
    if limit and size > limit:  # never parsed: reading it is the cost
        _too_large(job, result, size, limit)
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


def _grade(job: Job, result: Result) -> None:
    release = nbformat.read(Path(job.release), as_version=4)
    result.max_score = float(
        sum(
            nbgrader_meta(c).get("points", 0)
            for c in release.cells
            if nbgrader_meta(c).get("grade")
        )
    )
    submitted = _read_submission(job, result)
    if submitted is None:
        return
    jobdir = Path(job.jobdir)
    shutil.rmtree(jobdir, ignore_errors=True)
    shutil.copytree(job.template, jobdir)
    target = jobdir / "submitted" / job.student / job.lesson
    target.mkdir(parents=True, exist_ok=True)
    with warnings_silenced():
        nbformat.write(submitted, target / f"{job.lesson}.ipynb")
    limit_resources(job.memory_mb)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(job.threads)
    executed, db_url = _autograde(job, jobdir)
    if executed is None and KERNEL_START_FAILED in db_url:
        # The kernel died before it ran a line of the submission (a fork under
        # heavy load): not the student's doing, so once more, from scratch.
        executed, db_url = _autograde(replace(job, warm=False), jobdir)
    if executed is None:
        result.message = failure_reason(db_url)
        return
    found = executed.metadata.get("course", {})
    result.flags = list(found.get("flags", []))
    result.review = list(found.get("review", []))
    result.verdict_seconds = float(found.get("verdict_seconds", 0.0))
    result.hints = {
        gid: v["message"][:400]
        for gid, v in found.get("verdicts", {}).items()
        if not v.get("passed")
    }
    _read_scores(db_url, job, result)
    # The executed notebook, where a course's formgrader can open it.
    kept = Path(job.out) / "autograded" / job.student / job.lesson
    kept.mkdir(parents=True, exist_ok=True)
    nbformat.write(executed, kept / f"{job.lesson}.ipynb")
    out = Path(job.out) / "feedback" / job.lesson / f"{job.student}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        render_feedback(executed, db_url, job.student, job.lesson),
        encoding="utf-8",
    )
    result.feedback = str(out)
    result.status = "graded"


def _autograde(job: Job, jobdir: Path) -> tuple[Any | None, str]:
    """Run nbgrader autograde; return (graded notebook, db url) or (None, log)."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from autograder.scratch import _put_python_on_path, grading_config

    _put_python_on_path()
    config = grading_config(jobdir)
    config.GradingExecute.timeout = job.timeout
    config.GradingExecute.warm = job.warm
    config.GradingExecute.confine = job.confine
    config.GradingExecute.require_namespaces = job.require_namespaces
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    outcome = api.autograde(job.lesson, job.student, force=True, create=True)
    if not outcome.get("success"):
        return None, "\n".join(
            str(part) for part in (outcome.get("log"), outcome.get("error")) if part
        ) or "autograde failed"
    graded = jobdir / "autograded" / job.student / job.lesson
    return nbformat.read(graded / f"{job.lesson}.ipynb", as_version=4), str(
        api.coursedir.db_url
    )


def _read_scores(db_url: str, job: Job, result: Result) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        nb = gradebook.find_submission_notebook(job.lesson, job.lesson, job.student)
        result.score, result.max_score = float(nb.score), float(nb.max_score)
        result.per_question = {
            g.name: [float(g.score), float(g.max_score)] for g in nb.grades
        }


_EXPORTER: Any = None


def render_feedback(executed: Any, db_url: str, student: str, assignment: str) -> str:
    """nbgrader's feedback page, from an exporter built once per worker process."""
    global _EXPORTER
    if _EXPORTER is None:
        from autograder.feedback import feedback_exporter

        _EXPORTER = feedback_exporter()
    resources = {
        "unique_key": assignment,
        "nbgrader": {
            "student": student,
            "assignment": assignment,
            "notebook": assignment,
            "db_url": db_url,
        },
    }
    html, _ = _EXPORTER.from_notebook_node(executed, resources=resources)
    return html
