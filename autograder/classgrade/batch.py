"""The batch: grade a whole class in parallel, resumably, and write the reports."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path

from autograder.classgrade.intake import Submission, collect_submissions
from autograder.classgrade.progress import Progress
from autograder.classgrade.reports import (
    ClassReport,
    Result,
    feedback_to_course,
    write_reports,
)
from autograder.classgrade.worker import Job, grade_job, write_json
from autograder.lessons import find_lesson

DEFAULT_TIMEOUT = 60
DEFAULT_MEMORY_MB = 4096


def _stored(
    out_dir: Path, sub: Submission, same_file: bool = True, graded_only: bool = True
) -> Result | None:
    """The result of an earlier run for this submission, or None: graded only
    (unless ``graded_only`` is False), for this exact file (unless
    ``same_file`` is False)."""
    stored = out_dir / "results" / sub.lesson / f"{sub.student}.json"
    if not stored.is_file():
        return None
    try:
        data = json.loads(stored.read_text(encoding="utf-8"))
        same = data.get("digest") == sub.digest or not same_file
        if same and (data.get("status") == "graded" or not graded_only):
            return Result(**data)
    except (ValueError, TypeError):
        pass
    return None


def _one_question(new: Result, earlier: Result, question: str) -> Result:
    """``new``'s score (and hint) for ``question`` put into ``earlier``: the rest
    of the earlier, graded run stays."""
    merged = Result(**{**asdict(earlier), "per_question": dict(earlier.per_question)})
    merged.per_question[question] = new.per_question[question]
    merged.score = float(sum(score for score, _ in merged.per_question.values()))
    merged.hints = {k: v for k, v in earlier.hints.items() if k != question}
    if question in new.hints:
        merged.hints[question] = new.hints[question]
    return merged


def _selected(sub: Submission, student: str | None, question: str | None) -> bool:
    """Whether a precise regrade takes this submission."""
    from autograder.lessons import test_points

    if student is not None and sub.student != student:
        return False
    return question is None or question in test_points(sub.lesson)


def _select(
    submissions: list[Submission], student: str | None, question: str | None
) -> None:
    """Check that ``--student`` and ``--question`` name something in this batch.

    Raises:
        ValueError: one line, with what there is to choose from.
    """
    from autograder.lessons import test_points

    if student is not None and not any(s.student == student for s in submissions):
        found = sorted({s.student for s in submissions})
        shown = ", ".join(found[:10]) + (" ..." if len(found) > 10 else "")
        raise ValueError(
            f"no submission from student {student!r} here (found: {shown or 'none'})"
        )
    if question is not None:
        lessons = {s.lesson for s in submissions if student in (None, s.student)}
        ids = sorted({q for lesson in lessons for q in test_points(lesson)})
        if question not in ids:
            raise ValueError(
                f"{question!r} is not a test cell of {', '.join(sorted(lessons))}; "
                f"the grade ids are: {', '.join(ids)}"
            )


def _templates(work: Path, lessons: set[str]) -> dict[str, tuple[Path, Path]]:
    """A template course for each lesson, and the lesson's release.

    Each is a copy of the cached course (:func:`autograder.scratch.cached_course`:
    nbgrader spends seconds creating a gradebook), copied again into each job
    folder. The reference results of each lesson are computed here too, once,
    before the workers start.
    """
    from autograder.reference import reference_results
    from autograder.scratch import ScratchCourse

    templates: dict[str, tuple[Path, Path]] = {}
    for lesson in sorted(lessons):
        template_dir = work / "templates" / lesson
        shutil.rmtree(template_dir, ignore_errors=True)
        released = ScratchCourse(template_dir, keep=True).generate(lesson)
        release = work / "templates" / f"{lesson}.release.ipynb"
        shutil.copyfile(released / f"{lesson}.ipynb", release)
        templates[lesson] = (template_dir, release)
        reference_results(lesson)
    return templates


def _check_confinement(sandbox: bool, weak: bool) -> None:
    """Stop before any work where kernels cannot get their namespaces."""
    from autograder import namespaces
    from autograder import sandbox as landlock

    if sandbox and landlock.abi() > 0:
        try:
            namespaces.use(required=not weak)
        except namespaces.NamespaceError as exc:
            raise ValueError(str(exc)) from None


def worker_pool(
    workers: int, preload: tuple[str, ...] = ("autograder.classgrade.worker",)
) -> ProcessPoolExecutor:
    """Grading workers, started with the allow-listed environment.

    A process shows the environment it was started with in /proc/<pid>/environ
    whatever it changes later, so the workers are not forked from this process
    (whose environment may hold the grader's secrets) but from a fork server
    started with :func:`autograder.limits.worker_env` only; each worker then
    takes that filtered environment as it is now.
    """
    from multiprocessing import forkserver

    from autograder.limits import set_environment, worker_env

    env = worker_env(dict(os.environ))
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    kept = dict(os.environ)
    try:
        set_environment(env)
        forkserver.ensure_running()  # a no-op once it runs
    finally:
        set_environment(kept)
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=set_environment,
        initargs=(env,),
    )


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
    times: dict[str, str] | None = None,
    due: str | None = None,
    student: str | None = None,
    question: str | None = None,
    weak_confinement: bool = False,
) -> ClassReport:
    """Grade every submission in ``source``; write results, CSVs and feedback.

    ``warm`` forks kernels from a preloaded helper (:mod:`autograder.warmkernel`);
    ``sandbox`` confines every kernel with Landlock where the OS offers it
    (:mod:`autograder.sandbox`; the report's ``kernels`` line says which).
    ``on_result`` is called with each result as it arrives. ``gradebook``, a
    course's ``gradebook.db``, receives every result once the batch is done
    (:mod:`autograder.classgrade.gradebook`), and the executed notebooks go to
    ``autograded/`` beside it, for formgrader; ``due`` first sets the lesson's
    due date there, and late submissions get the course config's penalty
    (:mod:`autograder.late`; ``times`` are submission times by file name).

    ``student`` regrades that student only; ``question`` (a ``grade_id``) runs
    the notebooks again but keeps only that test cell's new score. Nothing else
    is written, in the results or the gradebook.

    Confined kernels get their own user, PID and mount namespaces; where Linux
    refuses them the batch stops, unless ``weak_confinement`` accepts kernels
    that can see the machine's other processes.

    Raises:
        ValueError: bad source or unknown lesson (one line, for the CLI).
    """
    start = time.perf_counter()
    _check_confinement(sandbox, weak_confinement)
    if lesson is not None:
        lesson = find_lesson(lesson).stem
    out_dir = Path(out_dir).resolve()
    work = out_dir / ".work"
    submissions, problems = collect_submissions(
        Path(source), lesson, work, name_map, times
    )
    precise = student is not None or question is not None
    if precise:
        _select(submissions, student, question)
    results: dict[tuple[str, str], Result] = {}
    earlier_runs: dict[tuple[str, str], Result | None] = {}
    todo = []
    for sub in submissions:
        key = (sub.student, sub.lesson)
        if precise and _selected(sub, student, question):
            earlier_runs[key] = _stored(out_dir, sub, same_file=False)
            todo.append(sub)
            continue
        # A precise regrade leaves everyone else's last result as it was.
        earlier = (
            _stored(out_dir, sub, same_file=False, graded_only=False)
            if precise
            else None
            if force
            else _stored(out_dir, sub)
        )
        if earlier is not None:
            results[key] = earlier
        elif not precise:
            todo.append(sub)
    reused = len(results)
    # With a gradebook to fill, every lesson's definition may be needed.
    wanted = submissions if gradebook is not None and not precise else todo
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
            require_namespaces=not weak_confinement,
        )
        for s in todo
    ]
    whole: set[tuple[str, str]] = set()
    if batch:
        with worker_pool(min(jobs, len(batch))) as pool:
            futures = [pool.submit(grade_job, job) for job in batch]
            for future in as_completed(futures):
                result = future.result()
                key = (result.student, result.lesson)
                earlier = earlier_runs.get(key)
                if question is not None and earlier is not None:
                    if result.status == "graded" and question in result.per_question:
                        result = _one_question(result, earlier, question)
                    else:  # the regrade failed: the earlier result stands
                        problems.append(
                            f"{result.student}/{result.lesson}: the regrade of "
                            f"{question} failed ({result.status}: "
                            f"{result.message[:200]}); the earlier result stands"
                        )
                        result = earlier
                    write_json(Job.result_path(out_dir, result), asdict(result))
                elif question is not None:
                    whole.add(key)  # nothing earlier: every cell is written
                results[key] = result
                bar.update(result)
                if on_result is not None:
                    on_result(result)
    ordered = sorted(results.values(), key=lambda r: (r.lesson, r.student))
    when = {(s.student, s.lesson): s.submitted_at for s in submissions}
    for result in ordered:
        result.submitted_at = when.get((result.student, result.lesson), "")
    if gradebook is not None and templates:
        from autograder.classgrade.gradebook import (
            read_lateness,
            record,
            refresh_feedback,
        )

        Path(gradebook).resolve().parent.mkdir(parents=True, exist_ok=True)
        regraded = {(s.student, s.lesson) for s in todo}
        db_url = f"sqlite:///{Path(gradebook).resolve()}"
        record(
            [r for r in ordered if not precise or (r.student, r.lesson) in regraded],
            db_url,
            {
                name: f"sqlite:///{Path(root).resolve() / 'gradebook.db'}"
                for name, (root, _) in templates.items()
            },
            course_root=Path(gradebook).resolve().parent,
            autograded_from=out_dir,
            due=due,
            lesson=lesson,
            only_question=question,
            whole=whole,
        )
        # Every row's lateness as the gradebook has it now, regraded or not.
        lateness = read_lateness(db_url, [(r.student, r.lesson) for r in ordered])
        for result in ordered:
            seconds, penalty, raw = lateness.get(
                (result.student, result.lesson), (0.0, 0.0, None)
            )
            result.seconds_late, result.late_penalty = seconds, penalty
            result.gradebook_score = raw
        # Feedback pages show what the gradebook holds: manual scores, penalty.
        # (A precise regrade leaves everyone else's page as it was.)
        mine = [r for r in ordered if not precise or (r.student, r.lesson) in regraded]
        problems += refresh_feedback(mine, db_url, out_dir)
        for result in ordered:
            if result.status == "graded":
                write_json(Job.result_path(out_dir, result), asdict(result))
    write_reports(ordered, out_dir)
    if course_feedback:
        # In a precise regrade only the notebooks graded now have fresh feedback.
        problems += feedback_to_course(todo if precise else submissions, results)
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
