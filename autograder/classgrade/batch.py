"""The batch: ``plan``, ``run`` and ``publish``, and :func:`grade_class` for all three.

- :func:`autograder.classgrade.request.plan`: intake and selection;
- :func:`run`: one job per submission on any ``concurrent.futures.Executor``
  (by default :func:`~autograder.classgrade.pool.worker_pool`, or a Dask
  cluster's, :mod:`autograder.classgrade.cluster`); each result is stored as
  it arrives
  (:mod:`autograder.classgrade.store`);
- :func:`publish`: the only writer of the course gradebook, then lateness,
  reports and feedback.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import (
    Executor,
    ThreadPoolExecutor,
    as_completed,
)
from contextlib import contextmanager
from dataclasses import asdict, fields
from pathlib import Path

from autograder.classgrade import store
from autograder.classgrade.arrival import (
    course_book,
    in_store,
    read_marks,
    store_result,
)
from autograder.classgrade.class_figures import draw_class_figures
from autograder.classgrade.due import late_into
from autograder.classgrade.gradebook import CourseBook
from autograder.classgrade.pages import draw_pages
from autograder.classgrade.pool import Halt, shared_server, stop_pool, worker_pool
from autograder.classgrade.progress import Progress
from autograder.classgrade.reports import (
    ClassReport,
    Marks,
    Result,
    feedback_to_course,
    write_reports,
)
from autograder.classgrade.request import Plan, Request, plan
from autograder.classgrade.runlock import one_run
from autograder.classgrade.worker import failed, grade_job

__all__ = [
    "Stopped",
    "grade_class",
    "publish",
    "run",
    "shared_server",
    "stop_pool",
    "worker_pool",
]


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


def run(
    planned: Plan,
    executor: Executor,
    on_result: Callable[[Result], None] | None = None,
    book: CourseBook | None = None,
) -> Iterator[Result]:
    """Grade the plan's jobs on ``executor``; store and yield each result as it
    arrives (a one-question regrade yields the merged result): into ``book``,
    the course gradebook, when there is one."""
    if isinstance(executor, ThreadPoolExecutor):
        raise TypeError(
            "run() needs an executor of processes (worker_pool(), a "
            "ProcessPoolExecutor or a cluster's): a job caps its process's "
            "memory and sets its environment"
        )
    question = planned.request.question
    with _interrupt_deferred():  # a worker half started would be orphaned
        futures = {executor.submit(grade_job, job): job for job in planned.jobs}
    for future in as_completed(futures):
        try:
            graded = future.result()
        except Halt:
            raise
        except Exception as exc:  # noqa: BLE001 - a lost worker fails one job
            graded = failed(
                futures[future],
                f"the grading worker failed: {type(exc).__name__}: {exc}",
            )
        result = graded.result
        key = (result.student, result.lesson)
        earlier = planned.earlier.get(key)
        with _interrupt_deferred():  # the gradebook and the files agree
            if question is not None and earlier is not None:
                if result.status == "graded" and question in result.per_question:
                    store.keep(planned.out_dir, graded)
                    result = _one_question(result, earlier, question)
                    store_result(planned, result, book, graded.result, question)
                else:  # the regrade failed: the earlier result stands
                    planned.problems.append(
                        f"{result.student}/{result.lesson}: the regrade of "
                        f"{question} failed ({result.status}: "
                        f"{result.message[:200]}); the earlier result stands"
                    )
                    result = earlier
            else:
                store.keep(planned.out_dir, graded)
                store_result(planned, result, book, result, None)
        if on_result is not None:
            on_result(result)
        yield result


def _row(result: Result) -> tuple[str, str]:
    return (result.lesson, result.student)


def publish(
    planned: Plan,
    graded_now: list[Result],
    seconds: float,
    book: CourseBook | None = None,
) -> ClassReport:
    """Every output, read from the store of scores once it is final (``book``,
    the course gradebook; without one, the results): raw and final scores and
    lateness, the feedback pages whose marks changed, ``grades.csv`` and
    ``pass_rates.csv``."""
    request, out = planned.request, planned.out_dir
    results = dict(planned.results)
    results.update({(r.student, r.lesson): r for r in graded_now})
    ordered = sorted(results.values(), key=lambda r: (r.lesson, r.student))
    for result in ordered:
        result.submitted_at = planned.when.get((result.student, result.lesson), "")
    rows = ordered + planned.others
    marks: dict = {}
    if book is not None:
        planned.problems += book.settle()  # before any output reads it
        marks = book.marks((r.student, r.lesson) for r in rows)
    rows = [r for r in rows if in_store(r, book, marks, planned)]
    graded = [r for r in rows if r.status == "graded"]
    if book is not None:
        for result in graded:
            result.take(marks[(result.student, result.lesson)])
    else:
        now = {(r.student, r.lesson) for r in graded_now}
        for result in graded:  # a new due date moves the earlier rows too
            if (result.student, result.lesson) not in now and planned.lateness:
                if late_into(result, planned.lateness, planned.plugin):
                    store.save(out, result)
        marks = {(r.student, r.lesson): Marks.of(r) for r in graded}
    for key in planned.dropped:  # --force: what this source no longer holds
        store.forget(out, *key)
        if book is not None:
            planned.problems.append(
                f"{key[0]}/{key[1]}: not in this source, removed from {out}; its "
                "submission stays in the gradebook (formgrader, nbgrader export)"
            )
    problems, drawn = planned.problems, set()
    problems += draw_pages(out, graded, marks, os.cpu_count() or 1, drawn)
    write_reports(sorted(rows, key=_row), out)
    try:
        draw_class_figures(rows, out)
    except RuntimeError as exc:  # a figure that does not read is not kept
        problems.append(f"class figures: {exc}")
    if request.course_feedback:
        # In a precise regrade, the notebooks graded now and the pages whose
        # marks changed since (a manual score) have fresh feedback.
        fresh = {(s.student, s.lesson) for s in planned.todo} | drawn
        problems += feedback_to_course(
            [
                s
                for s in planned.submissions
                if not request.precise or (s.student, s.lesson) in fresh
            ],
            results,
        )
    shutil.rmtree(out / ".work" / "jobs", ignore_errors=True)
    return ClassReport(
        ordered,
        problems,
        len(planned.todo),
        len(planned.results),
        out,
        seconds,
        planned.kernels,
        planned.left_out,
        planned.releases,
        frozenset((s.student, s.lesson) for s in planned.todo),
    )


_REQUEST_FIELDS = {f.name for f in fields(Request)}


def grade_class(
    source: Path,
    lesson: str | None = None,
    *,
    jobs: int | None = None,
    progress: bool = True,
    on_result: Callable[[Result], None] | None = None,
    executor: Executor | None = None,
    cluster: str | None = None,
    allow_plain_tcp: bool = False,
    allow_weak_workers: bool = False,
    **options,
) -> ClassReport:
    """Grade every submission in ``source``: plan, run, publish.

    ``options`` are the fields of :class:`~autograder.classgrade.request.Request`
    (``out_dir``, ``force``, ``timeout``, ``gradebook``, ``due``, ...).
    ``jobs`` workers grade side by side in :func:`worker_pool`, unless an
    ``executor`` is given, or a Dask ``cluster`` address (``local:N``,
    ``tls://host:8786``; :mod:`autograder.classgrade.cluster`, with its
    ``allow_plain_tcp`` and ``allow_weak_workers``); ``on_result`` is called
    with each result as it arrives.

    Raises:
        ValueError: bad source, unknown lesson or option, an unusable cluster,
            or its scheduler gone mid-batch (one line, for the CLI).
    """
    unknown = sorted(set(options) - _REQUEST_FIELDS)
    if unknown:
        raise TypeError(f"grade_class() got unknown option(s): {', '.join(unknown)}")
    start = time.perf_counter()
    request = Request(Path(source), lesson, **options)
    if cluster is not None:
        from autograder.classgrade.cluster_reach import parse

        if jobs or executor is not None:
            raise ValueError("--cluster grades on its workers: leave out --jobs")
        parse(cluster, allow_plain_tcp)  # a bad address stops before any work
    workers = jobs or os.cpu_count() or 1
    bar = Progress(0, enabled=progress)
    notes: list[str] = []
    locks = _locks(request)
    fresh = [path for path in locks if not path.parent.exists()]
    try:
        with one_run(locks, notes):
            bar.say(notes)
            planned = plan(request, workers, say=bar.say, here=cluster is None)
            planned.problems[:0] = notes
            bar.say([f"rules: {line}" for line in planned.releases])
            bar.total = len(planned.jobs)
            graded_now: list[Result] = []
            with course_book(planned) as book:

                def arrived(result: Result) -> None:
                    read_marks(result, book)  # the progress line: the final score
                    bar.update(result)
                    if on_result is not None:
                        on_result(result)

                if planned.jobs:
                    _grade(
                        planned,
                        executor,
                        cluster,
                        workers,
                        bar,
                        arrived,
                        graded_now,
                        (allow_plain_tcp, allow_weak_workers),
                        book,
                    )
                return publish(planned, graded_now, time.perf_counter() - start, book)
    except BaseException:
        for path in fresh:  # a run that stopped before writing leaves no folder
            if [p.name for p in path.parent.iterdir()] == [path.name]:
                shutil.rmtree(path.parent, ignore_errors=True)
        raise


def _grade(
    planned: Plan,
    executor: Executor | None,
    cluster: str | None,
    workers: int,
    bar: Progress,
    arrived: Callable[[Result], None],
    graded_now: list[Result],
    allow: tuple[bool, bool],
    book: CourseBook | None = None,
) -> None:
    """Run the plan's jobs on ``executor``, on a Dask ``cluster``, or on a
    pool of ``workers`` made here; each result into ``graded_now``."""
    request, shared = planned.request, None
    if cluster is not None:
        from autograder.classgrade.cluster import ClusterPool

        executor = pool = ClusterPool(
            cluster,
            sandbox=request.sandbox,
            weak_confinement=request.weak_confinement,
            allow_plain_tcp=allow[0],
            allow_weak_workers=allow[1],
            say=bar.say,
        )
        try:
            pool.prepare(planned.jobs)  # every bundle, before Ctrl-C is held
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
        bar.busy = pool.in_use
        bar.say([f"cluster: {cluster}, {pool.slots()} task slot(s)"])
    elif executor is None and request.warm:
        shared = shared_server(planned.jobs[0].threads)
    try:
        pool = executor or worker_pool(min(workers, len(planned.jobs)), shared=shared)
    except BaseException:  # the server would outlive the batch
        if shared is not None:
            shared.close()
        raise
    mine = executor is None or cluster is not None
    try:
        for result in run(planned, pool, arrived, book):
            graded_now.append(result)
    except KeyboardInterrupt:
        if executor is None:
            stop_pool(pool)
        raise _stopped(planned, bar.finished) from None
    except Halt as exc:
        raise ValueError(
            f"{exc} ({bar.done} graded now, {len(planned.jobs) - bar.done} left)"
        ) from None
    finally:
        if mine:
            pool.shutdown(cancel_futures=True)
        if shared is not None:
            shared.close()


class Stopped(KeyboardInterrupt):
    """Ctrl-C during a run: what is graded stays, the rest waits for a rerun
    (still a ``KeyboardInterrupt``, with the counts). ``kept``: of those
    ``left``, the ones whose earlier result a rerun keeps (a ``--force``
    run's; a rerun regrades them only with ``--force`` again)."""

    def __init__(self, graded: int, left: int, kept: int = 0) -> None:
        later = f"{left - kept} will be graded on the next run"
        if kept:
            later += f", {kept} keep their earlier result (--force again regrades them)"
        super().__init__(f"stopped; {graded} graded, {later}")
        self.graded, self.left, self.kept = graded, left, kept


def _stopped(planned: Plan, done: set[tuple[str, str]]) -> Stopped:
    """What a Ctrl-C leaves: the jobs not graded (``done``: those that
    were), and of those, the ones a plain rerun would not grade again (an
    earlier result of the same file)."""
    left = [j for j in planned.jobs if (j.student, j.lesson) not in done]
    kept = 0
    if planned.request.force:
        out = Path(planned.request.out_dir)
        kept = sum(
            store.stored(out, j.student, j.lesson, j.digest) is not None for j in left
        )
    return Stopped(len(done), len(left), kept)


def _locks(request: Request) -> dict[Path, str]:
    """The run's lock files: its output folder's, and its gradebook's."""
    out = Path(request.out_dir).resolve()
    locks = {out / ".course-grade.lock": f"the output folder {out}"}
    if request.gradebook is not None:
        book = Path(request.gradebook).resolve()
        locks[book.with_name(book.name + ".lock")] = f"the gradebook {book}"
    return locks


@contextmanager
def _interrupt_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block ends (a pool starts its workers in
    ``submit``); then raise it. Off the main thread, nothing is deferred."""
    seen: list[int] = []
    try:
        before = signal.signal(signal.SIGINT, lambda *_: seen.append(1))
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if seen:
        raise KeyboardInterrupt
