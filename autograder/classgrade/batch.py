"""The batch: grade a whole class in parallel, resumably, and write the reports."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from autograder.classgrade.intake import Submission, collect_submissions
from autograder.classgrade.progress import Progress
from autograder.classgrade.reports import (
    ClassReport,
    Result,
    feedback_to_course,
    write_reports,
)
from autograder.classgrade.worker import Job, grade_job
from autograder.lessons import find_lesson

DEFAULT_TIMEOUT = 60
DEFAULT_MEMORY_MB = 4096


def _stored(out_dir: Path, sub: Submission) -> Result | None:
    """The result of an earlier run for this exact file, if it was graded."""
    stored = out_dir / "results" / sub.lesson / f"{sub.student}.json"
    if not stored.is_file():
        return None
    try:
        data = json.loads(stored.read_text(encoding="utf-8"))
        if data.get("digest") == sub.digest and data.get("status") == "graded":
            return Result(**data)
    except (ValueError, TypeError):
        pass
    return None


def _templates(work: Path, lessons: set[str]) -> dict[str, tuple[Path, Path]]:
    """One template course for every lesson, and each lesson's release.

    One gradebook to create (nbgrader spends seconds on each new one), copied
    into each job folder. The reference results of each lesson are computed
    here too, once, before the workers start.
    """
    from autograder.reference import reference_results
    from autograder.scratch import ScratchCourse

    templates: dict[str, tuple[Path, Path]] = {}
    template_dir = work / "templates" / "course"
    shutil.rmtree(template_dir, ignore_errors=True)
    template = ScratchCourse(template_dir, keep=True)
    for lesson in sorted(lessons):
        released = template.generate(lesson)
        release = work / "templates" / f"{lesson}.release.ipynb"
        shutil.copyfile(released / f"{lesson}.ipynb", release)
        templates[lesson] = (template_dir, release)
        reference_results(lesson)
    return templates


def grade_class(
    source: Path,
    lesson: str | None = None,
    *,
    out_dir: Path = Path("grading"),
    jobs: int | None = None,
    force: bool = False,
    timeout: int = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    name_map: dict[str, str] | None = None,
    progress: bool = True,
    warm: bool = True,
    course_feedback: bool = False,
    sandbox: bool = True,
    on_result: Callable[[Result], None] | None = None,
    gradebook: Path | None = None,
) -> ClassReport:
    """Grade every submission in ``source``; write results, CSVs and feedback.

    ``warm`` forks kernels from a preloaded helper (:mod:`autograder.warmkernel`);
    ``sandbox`` confines every kernel with Landlock where the OS offers it
    (:mod:`autograder.sandbox`; the report's ``kernels`` line says which).
    ``on_result`` is called with each result as it arrives. ``gradebook``, a
    course's ``gradebook.db``, receives every result once the batch is done
    (:mod:`autograder.classgrade.gradebook`), and the executed notebooks go to
    ``autograded/`` beside it, for formgrader.

    Raises:
        ValueError: bad source or unknown lesson (one line, for the CLI).
    """
    start = time.perf_counter()
    if lesson is not None:
        lesson = find_lesson(lesson).stem
    out_dir = Path(out_dir).resolve()
    work = out_dir / ".work"
    submissions, problems = collect_submissions(Path(source), lesson, work, name_map)
    results: dict[tuple[str, str], Result] = {}
    todo = []
    for sub in submissions:
        earlier = None if force else _stored(out_dir, sub)
        if earlier is not None:
            results[(sub.student, sub.lesson)] = earlier
        else:
            todo.append(sub)
    reused = len(results)
    # With a gradebook to fill, every lesson's definition may be needed.
    wanted = submissions if gradebook is not None else todo
    templates = _templates(work, {sub.lesson for sub in wanted})
    jobs = jobs or os.cpu_count() or 1
    from autograder import sandbox as landlock

    confine = sandbox and landlock.abi() > 0
    kernels = landlock.status() if sandbox else "not confined: --no-sandbox"
    # Kernels side by side must not each start one math thread per core: the
    # oversubscribed threads spin against each other and grading crawls.
    threads = max(1, (os.cpu_count() or 1) // min(jobs, max(len(todo), 1)))
    bar = Progress(len(todo), enabled=progress)
    batch = [
        Job(
            student=s.student,
            lesson=s.lesson,
            path=str(s.path),
            digest=s.digest,
            template=str(templates[s.lesson][0]),
            release=str(templates[s.lesson][1]),
            jobdir=str(work / "jobs" / s.lesson / s.student),
            out=str(out_dir),
            timeout=timeout,
            memory_mb=memory_mb,
            threads=threads,
            warm=warm,
            confine=confine,
        )
        for s in todo
    ]
    if batch:
        with ProcessPoolExecutor(max_workers=min(jobs, len(batch))) as pool:
            futures = [pool.submit(grade_job, job) for job in batch]
            for future in as_completed(futures):
                result = future.result()
                results[(result.student, result.lesson)] = result
                bar.update(result)
                if on_result is not None:
                    on_result(result)
    ordered = sorted(results.values(), key=lambda r: (r.lesson, r.student))
    write_reports(ordered, out_dir)
    if gradebook is not None and templates:
        from autograder.classgrade.gradebook import record

        template_root = next(iter(templates.values()))[0]
        record(
            ordered,
            f"sqlite:///{Path(gradebook).resolve()}",
            f"sqlite:///{Path(template_root).resolve() / 'gradebook.db'}",
            course_root=Path(gradebook).resolve().parent,
            autograded_from=out_dir,
        )
    if course_feedback:
        problems += feedback_to_course(submissions, results)
    shutil.rmtree(work / "jobs", ignore_errors=True)
    return ClassReport(
        ordered,
        problems,
        len(todo),
        reused,
        out_dir,
        time.perf_counter() - start,
        kernels,
    )
