"""What a grading run is asked, and what it will do: :class:`Request` and :func:`plan`.

``course grade`` is three steps (:mod:`autograder.classgrade.batch`):
``plan`` (this module: intake, the submissions to grade, what an earlier run
already graded), ``run`` (one job per submission, on any executor) and
``publish`` (the course gradebook, lateness, reports, feedback).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.classgrade.due import Lateness
from autograder.classgrade.gradebook import held_definitions, recorded
from autograder.classgrade.intake import Submission, collect
from autograder.classgrade.prepare import hold_back, prepare_lessons, rules_of
from autograder.classgrade.reports import Result
from autograder.classgrade.store import stored
from autograder.classgrade.worker import Job
from autograder.config import DEFAULT_MEMORY_MB, DEFAULT_OUT
from autograder.lessons import find_lesson, releases

Key = tuple[str, str]  # (student, lesson)


@dataclass(frozen=True)
class Request:
    """What to grade, and how: every option of ``course grade``, once.

    ``warm`` forks kernels from a preloaded helper
    (:mod:`autograder.grading.kernel.warmkernel`);
    ``sandbox`` confines every kernel where the OS offers it
    (:mod:`autograder.grading.kernel.sandbox`), and ``weak_confinement`` accepts kernels
    without their own namespaces where Linux refuses them. ``gradebook``, a
    course's ``gradebook.db``, receives every result
    (:mod:`autograder.classgrade.gradebook`); ``due`` first sets the lesson's
    due date there, and ``times`` are submission times by file name.
    ``student`` regrades one student; ``question`` (a ``grade_id``) runs the
    notebooks again but keeps only that test cell's new score. ``timeout``
    None: the course config's ``GradingExecute.timeout`` (the instructor's
    root config, as nbgrader reads it, else the course's own).
    """

    source: Path
    lesson: str | None = None
    out_dir: Path = DEFAULT_OUT
    force: bool = False
    timeout: int | None = None
    memory_mb: int = DEFAULT_MEMORY_MB
    name_map: dict[str, str] | None = None
    warm: bool = True
    sandbox: bool = True
    weak_confinement: bool = False
    gradebook: Path | None = None
    course_feedback: bool = False
    times: dict[str, str] | None = None
    due: str | None = None
    student: str | None = None
    question: str | None = None
    yes: bool = False  # grade even if most of the class would lose half its marks
    #: "release": each submission under the rules of the release it carries
    #: (:mod:`autograder.lessons.releases`); "current": all under the lesson
    #: as the repository has it now
    rules: str = "release"

    @property
    def precise(self) -> bool:
        """A regrade of one student or one test cell."""
        return self.student is not None or self.question is not None


@dataclass
class Plan:
    """What :func:`plan` found: the jobs to run and what stands already."""

    request: Request
    out_dir: Path
    submissions: list[Submission]
    todo: list[Submission]
    jobs: list[Job]
    results: dict[Key, Result]  # reused from an earlier run
    earlier: dict[Key, Result | None]  # a precise regrade's earlier results
    problems: list[str]
    courses: dict[str, Path]  # each lesson's course root for the jobs: its release
    gradebooks: dict[str, Path]  # a copy of each lesson's generated gradebook
    kernels: str  # how kernels are isolated, for the summary
    whole: set[Key] = field(default_factory=set)  # regraded with no earlier result
    lesson: str | None = None  # the one lesson asked for, by its full name
    due: str | None = None  # --due as read: ISO text, UTC
    left_out: tuple[int, int] = (0, 0)  # at intake: files skipped, unattributed
    others: list[Result] = field(default_factory=list)  # rows kept, not graded now
    dropped: list[Key] = field(default_factory=list)  # --force: removed at publish
    releases: list[str] = field(default_factory=list)  # rules other than current
    lateness: Lateness | None = None  # due dates and who is late, before grading
    when: dict[Key, str] = field(default_factory=dict)  # submission times (ISO)
    plugin: Any = None  # the late-penalty plugin (without a gradebook)
    #: the instructor's config (its root's ``nbgrader_config.py``, else the
    #: course's own), read once for the whole run
    config: Any = None

    def rewritten(self) -> set[tuple[str, str, str]]:
        """(student, lesson, cell) of each score this run writes again."""
        from autograder.lessons.releases import grade_points

        question, found = self.request.question, set()
        for sub in self.todo:
            key = (sub.student, sub.lesson)
            for cell in grade_points(sub.lesson):
                if question in (None, cell) or key in self.whole:
                    found.add((sub.student, sub.lesson, cell))
        return found


def _check(request: Request, submissions: list[Submission]) -> None:
    """``--student`` and ``--question`` must name something in this batch.

    Raises:
        ValueError: one line, with what there is to choose from.
    """
    from autograder.lessons.releases import grade_points

    student, question = request.student, request.question
    if student is not None and not any(s.student == student for s in submissions):
        found = sorted({s.student for s in submissions})
        shown = ", ".join(found[:10]) + (" ..." if len(found) > 10 else "")
        raise ValueError(
            f"no submission from student {student!r} here (found: {shown or 'none'})"
        )
    if question is not None:
        lessons = {s.lesson for s in submissions if student in (None, s.student)}
        ids = sorted({q for lesson in lessons for q in grade_points(lesson)})
        if question not in ids:
            raise ValueError(
                f"{question!r} is not a test cell of {', '.join(sorted(lessons))}; "
                f"the grade ids are: {', '.join(ids)}"
            )


def _selected(sub: Submission, request: Request) -> bool:
    """Whether a precise regrade takes this submission."""
    from autograder.lessons.releases import grade_points

    if request.student is not None and sub.student != request.student:
        return False
    return request.question is None or request.question in grade_points(sub.lesson)


def _check_confinement(request: Request) -> str:
    """Stop before any work where kernels cannot get their namespaces; return
    how kernels will be isolated."""
    from autograder.grading.kernel import namespaces
    from autograder.grading.kernel import sandbox as landlock

    if not request.sandbox:
        return "not confined: --no-sandbox"
    if landlock.abi() > 0:
        try:
            namespaces.use(required=not request.weak_confinement)
        except namespaces.NamespaceError as exc:
            raise ValueError(str(exc)) from None
    return landlock.status()


def _earlier_rows(
    request: Request, out_dir: Path, submissions: list[Submission], lesson: str | None
) -> tuple[list[Result], list[Key]]:
    """The results ``out_dir`` holds that stay in ``grades.csv`` though this
    run does not grade them (other lessons'; in a precise regrade, everyone's
    not in the source), and the ones the run would drop: earlier results of the
    lessons it grades whose submissions are not in the source. Those stop the
    run, unless ``force``: then :func:`~autograder.classgrade.batch.publish`
    removes them, once the run has finished.

    Raises:
        ValueError: naming the results that would be lost, and what to do.
    """
    from autograder.classgrade import store

    now = {(s.student, s.lesson) for s in submissions}
    lessons = {s.lesson for s in submissions} | ({lesson} if lesson else set())
    earlier = store.stored_keys(out_dir) - now
    lost = [] if request.precise else sorted(k for k in earlier if k[1] in lessons)
    if lost and not request.force:
        names = ", ".join(f"{s}/{x}" for s, x in lost[:5])
        more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
        raise ValueError(
            f"{out_dir} holds {len(lost)} earlier result(s) that are not in "
            f"{request.source} ({names}{more}); grading there would drop them from "
            "grades.csv. Check that this is the class's folder (a folder that "
            "misses some students is usually the wrong one), or grade into "
            "another --out"
        )
    kept = sorted(set(earlier) - set(lost))
    rows = [store.stored(out_dir, *k, graded_only=False) for k in kept]
    return sorted(
        (r for r in rows if r is not None), key=lambda r: (r.lesson, r.student)
    ), lost


def course_root(request: Request) -> Path | None:
    """The course root whose config names the late-penalty plugin: the
    gradebook's folder, else the folder of an nbgrader ``submitted/`` source."""
    if request.gradebook is not None:
        return Path(request.gradebook).resolve().parent
    source = Path(request.source).resolve()
    if source.is_dir() and source.name == "submitted":
        return source.parent
    return source if (source / "submitted").is_dir() else None


def plan(
    request: Request,
    workers: int | None = None,
    say: Callable[[list[str]], None] | None = None,
    here: bool = True,
) -> Plan:
    """Intake and selection: the jobs to run, and the results that stand.
    ``say`` receives lines to show as the plan is made (the due dates, each
    lesson being prepared). ``here``: kernels run on this machine, whose
    confinement is checked first (False: on a cluster's workers, each
    checked before it grades, :mod:`autograder.classgrade.cluster`).

    A submission graded before, from the same file, is reused (unless
    ``force``). Each lesson's course and reference results are made here, once,
    before any job starts.

    Raises:
        ValueError: bad source or unknown lesson (one line, for the CLI).
    """
    from autograder.classgrade import due as due_module
    from autograder.config.settings import course_config, job_settings
    from autograder.grading.kernel import sandbox as landlock

    kernels = (
        _check_confinement(request)
        if here
        else "on the cluster's workers, each checked for Landlock and user "
        "namespaces before it grades"
    )
    lesson = find_lesson(request.lesson).stem if request.lesson is not None else None
    out_dir = Path(request.out_dir).resolve()
    work = out_dir / ".work"
    intake = collect(
        Path(request.source), lesson, work, request.name_map, request.times
    )
    submissions, problems = intake.submissions, intake.problems
    if lesson is not None and not submissions:
        problems.append(
            f"no submission of {lesson} in {request.source}: check that this is "
            "the class's folder and the lesson you meant (--lesson)"
        )
    if request.precise:
        _check(request, submissions)
    others, dropped = _earlier_rows(request, out_dir, submissions, lesson)
    held = held_definitions(request.gradebook) if request.rules == "release" else {}
    ruled = rules_of(request.rules, submissions, held)
    due = None
    # with a gradebook, lateness is kept there; without one, in the results
    config = course_config(course_root(request))
    lateness = due_module.lateness(request, submissions, lesson, ruled, config)
    if say is not None:
        say(lateness.lines())
    if request.due is not None and lesson in lateness.due:
        due = lateness.due[lesson][0].isoformat()
    results: dict[Key, Result] = {}
    earlier: dict[Key, Result | None] = {}
    todo = []
    # the store of scores: reuse only what it holds
    keys = [(s.student, s.lesson) for s in submissions]
    if request.gradebook is not None:
        in_store, kind = recorded(request.gradebook, keys), "gradebook"
    else:
        in_store, kind = set(keys), "results"
    for sub in submissions:
        key = (sub.student, sub.lesson)
        if request.precise and _selected(sub, request):
            found = stored(out_dir, *key)
            # an earlier result whose scores this run's store lacks: graded whole
            mine = found is not None and found.scores == kind and key in in_store
            earlier[key] = found if mine else None
            todo.append(sub)
            continue
        # A precise regrade leaves everyone else's last result as it was.
        if request.precise:
            before = stored(out_dir, *key, graded_only=False)
        else:
            before = None if request.force else stored(out_dir, *key, sub.digest)
            # graded under other rules (or, for --rules current, under rules
            # not recorded): graded again
            fits = {ruled[sub.path].digest} | (
                set() if request.rules == "current" else {""}
            )
            if before and before.release not in fits:
                before = None
            if (
                before is not None
                and before.status == "graded"
                and (before.scores != kind or key not in in_store)
            ):
                before = None  # its scores are not in this run's store
        if before is not None:
            results[key] = before
        elif not request.precise:
            todo.append(sub)
    # With a gradebook to fill, every lesson's definition may be needed.
    wanted = submissions if request.gradebook and not request.precise else todo
    courses, gradebooks, cells = prepare_lessons(
        [ruled[s.path].key for s in wanted if not ruled[s.path].held],
        ruled,
        work,
        problems,
        say,
        one_definition=request.gradebook is not None,
        # under each submission's own release, the gradebook's definition (a
        # --rules current run made it) binds one student's regrade too
        held=held or None,
        jobs=min(workers or os.cpu_count() or 1, 4),
    )
    # Held back (a release not kept, or one that cannot be graded as
    # written): not graded, named in a problem line; what stood stays.
    todo = hold_back(
        todo,
        ruled,
        problems,
        results,
        lambda key: stored(out_dir, *key, graded_only=False),
    )
    workers = workers or os.cpu_count() or 1
    # Kernels side by side must not each start one math thread per core: the
    # oversubscribed threads spin against each other and grading crawls.
    threads = max(1, (os.cpu_count() or 1) // min(workers, max(len(todo), 1)))
    confine = request.sandbox and landlock.abi() > 0
    late = {(x.student, x.lesson) for x in lateness.late}
    settings = job_settings(config)
    timeout = request.timeout or int(config.GradingExecute.timeout)
    jobs = [
        Job(
            student=s.student,
            lesson=s.lesson,
            path=str(s.path),
            digest=s.digest,
            course=str(courses[ruled[s.path].key]),
            cells=str(cells[ruled[s.path].key]),
            workdir=str(work / "jobs" / s.lesson / s.student),
            timeout=timeout,
            memory_mb=request.memory_mb,
            threads=threads,
            warm=request.warm,
            confine=confine,
            require_namespaces=not request.weak_confinement,
            root=ruled[s.path].key[1],
            rules=ruled[s.path].digest,
            settings=settings,
            # a worker's page shows the notebook's own marks: without a
            # gradebook and a late penalty, those are the store's
            page=request.gradebook is None
            and request.question is None
            and (s.student, s.lesson) not in late,
        )
        for s in todo
    ]
    whole = {
        key for key, result in earlier.items() if result is None and request.question
    }
    return Plan(
        request,
        out_dir,
        submissions,
        todo,
        jobs,
        results,
        earlier,
        problems,
        courses,
        gradebooks,
        kernels,
        whole,
        lesson,
        due,
        (intake.skipped, intake.unattributed),
        others,
        dropped,
        releases.summary([ruled[s.path] for s in todo]),
        lateness,
        {(s.student, s.lesson): s.submitted_at for s in submissions},
        due_module.plugin(request, lateness, config),
        config,
    )
