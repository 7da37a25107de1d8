"""Each lesson's release made ready for the jobs, once per batch.

:func:`rules_of` says which release grades each submission
(:mod:`autograder.lessons.releases`); :func:`prepare_lessons` makes each
release's course folder, reference results, gradebook copy and cells, the
current release first, and refuses a batch whose releases of one lesson the
course gradebook could not hold together; :func:`hold_back` takes out of the
batch each submission whose release is not kept or cannot be graded as
written, with a problem line that names the release and says what to do.
Used by :func:`autograder.classgrade.request.plan`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from autograder.classgrade.intake import Submission
from autograder.lessons import releases
from autograder.lessons.kept import ADVICE
from autograder.lessons.releases import Rules


def rules_of(
    rules: str, submissions: list[Submission], held: dict[str, tuple] | None = None
) -> dict[Path, Rules]:
    """The rules each submission is graded under, by its path: ``rules`` is
    ``--rules`` ("release" or "current"). ``held`` are the course gradebook's
    definitions, the record of the rules: once ``--rules current`` has made a
    lesson's the current release's, a submission whose release has other test
    cells or points is graded under the current release too (one student or
    one question included)."""
    now = {name: releases.current(name) for name in {s.lesson for s in submissions}}
    if rules not in ("release", "current"):
        raise ValueError(f"--rules is 'release' or 'current', not {rules!r}")
    found = {
        s.path: releases.resolve(
            s.lesson,
            releases.stamp_of(nb),
            now[s.lesson],
            rules=rules,
            of=releases.stamped_lesson(nb),
        )
        for s in submissions
        for nb in [_parsed(s.path)]  # read once for both
    }
    points: dict[tuple[str, str], dict] = {}

    def points_of(key: tuple[str, str]) -> dict:
        if key not in points:
            from autograder.lessons.releases import grade_points

            root = Path(key[1]) if key[1] else None
            points[key] = grade_points(releases.Release(key[0], root))
        return points[key]

    for path, ruled in list(found.items()):
        book = (held or {}).get(ruled.lesson)
        if ruled.root is None or book is None or points_of(ruled.key) == book[0]:
            continue
        if points_of((ruled.lesson, "")) == book[0]:
            found[path] = Rules(
                ruled.lesson,
                None,
                ruled.stamp,
                f"were released as {ruled.stamp}, but the gradebook holds the "
                "current release's test cells and points",
                now[ruled.lesson],
            )
    return found


def _parsed(path: Path) -> Any:
    """A submission's notebook as data, or None where it does not parse
    (intake reports those)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def prepare_lessons(
    keys: list[tuple[str, str]],
    ruled: dict[Path, Rules],
    work: Path,
    problems: list[str],
    say: Callable[[list[str]], None] | None,
    one_definition: bool,
    held: dict[str, tuple] | None = None,
    jobs: int = 1,
) -> tuple[dict, dict, dict]:
    """Prepare each (lesson, kept release root) in ``keys``: its course for
    the jobs, reference results, gradebook copy and cells, the current
    release first (its definition goes to the gradebook). The submissions of a
    kept release that cannot be prepared are held back (their ``ruled`` entry
    gets the reason, in place: :func:`hold_back`), never graded under
    another release. With ``one_definition``,
    the releases of a lesson must agree in test cells and points, and with
    ``held`` (the course gradebook's definitions, by lesson) with it too.
    With ``jobs`` > 1, the caches of several releases (course folder,
    reference results) are made first in that many processes side by side
    (:func:`_warm_caches`); each is then read here as before.

    Returns:
        The courses and cells by key, and a gradebook copy per lesson.
    """
    courses: dict = {}
    gradebooks: dict = {}
    cells: dict = {}
    graded: dict = {}
    groups = sorted(set(keys), key=_current_first)
    if jobs > 1 and len(groups) > 1:
        if say is not None:
            say([f"preparing {len(groups)} lesson release(s), {jobs} at a time"])
        _warm_caches(groups, jobs)
    while groups:  # the current release first: its definition goes to the gradebook
        name, root = groups.pop(0)
        if say is not None:
            say([f"preparing {name}: its released course and the reference results"])
        try:
            data = _prepare(name, root, work, courses, gradebooks, cells)
        except Exception as exc:  # noqa: BLE001 - one kept release, not the batch
            if not root:
                raise
            why = cannot_grade(Path(root).name, exc)
            for path, rules in list(ruled.items()):
                if rules.key == (name, root):
                    ruled[path] = replace(rules, held=why)
            continue
        graded.setdefault(name, {})[stamp_of_root(root)] = (
            data["grade_cells"],
            data["task_cells"],
        )
    if one_definition:
        _one_definition(graded, held)
    return courses, gradebooks, cells


def _warm(name: str, root: str) -> None:
    """Make one release's cached course and reference results (a process of
    :func:`_warm_caches`); a failure is left for :func:`_prepare` to meet."""
    from autograder.grading.reference import measured_reference, reference_results
    from autograder.lessons.scratch import cached_course

    release = releases.Release(name, Path(root) if root else None)
    try:
        cached_course(release)
        reference_results(release)
        measured_reference(release)
    except Exception:  # noqa: BLE001 - met again, and reported, in _prepare
        pass


def _warm_caches(groups: list[tuple[str, str]], jobs: int) -> None:
    """Each release's caches, ``jobs`` releases at a time, in fresh processes
    (the caches are locked per release, so this and any other run agree)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    workers = min(jobs, len(groups))
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        list(pool.map(_warm, *zip(*groups)))


def cannot_grade(stamp: str, exc: BaseException) -> str:
    """Why a kept release's submissions are held back: it failed to prepare."""
    return (
        f"carries release {stamp}, which this grader cannot grade as written "
        f"({type(exc).__name__}: {str(exc)[:240]}). {ADVICE}"
    )


def hold_back(
    todo: list,
    ruled: dict[Path, Rules],
    problems: list[str],
    results: dict,
    standing: Callable[[tuple[str, str]], Any],
) -> list:
    """``todo`` without the submissions whose rules are held (see the module):
    one problem line per lesson and reason, naming the students. What an
    earlier run stored for a held one (``standing``) stays in ``results``, so
    the reports still show it."""
    held: dict[tuple[str, str], list[str]] = {}
    kept: dict[tuple[str, str], int] = {}
    for sub in todo:
        why = ruled[sub.path].held
        if why:
            held.setdefault((sub.lesson, why), []).append(sub.student)
            found = standing((sub.student, sub.lesson))
            if found is not None:
                results[(sub.student, sub.lesson)] = found
                kept[(sub.lesson, why)] = kept.get((sub.lesson, why), 0) + 1
    for (lesson, why), students in sorted(held.items()):
        names = ", ".join(sorted(students)[:5]) + (", ..." if len(students) > 5 else "")
        stand = kept.get((lesson, why), 0)
        earlier = f"; the earlier result of {stand} stands" if stand else ""
        problems.append(
            f"{lesson}: {len(students)} submission(s) held back, not graded "
            f"({names}){earlier}: each {why}"
        )
    return [sub for sub in todo if not ruled[sub.path].held]


def _prepare(
    name: str, root: str, work: Path, courses: dict, gradebooks: dict, cells: dict
) -> dict:
    """Make one release's course, reference results, gradebook copy and cells
    for the jobs; return its cells as data."""
    from autograder.grading.chain.run import export_cells
    from autograder.grading.reference import measured_reference, reference_results
    from autograder.lessons.scratch import cached_course

    folder = f"{name}@{Path(root).name}" if root else name
    release = releases.Release(name, Path(root) if root else None)
    cached = cached_course(release)
    reference_results(release)
    # A kept release's own tests must pass in this grader's referee: one
    # written for an earlier grader (which ran tests in the student's
    # process) raises here, and its submissions are held back.
    measured_reference(release)
    # The jobs' course root: the release, copied (a rebuilt cache entry
    # replaces the cached folder, maybe while this batch runs).
    course = courses[(name, root)] = work / "templates" / folder
    shutil.rmtree(course, ignore_errors=True)
    shutil.copytree(cached / "notebooks" / name, course / "notebooks" / name)
    edition = release.edition("zh_CN")  # reassembly builds on a zh submission's
    if edition is not None:
        (course / "notebooks-zh" / name).mkdir(parents=True)
        shutil.copyfile(edition, course / "notebooks-zh" / name / edition.name)
    # A copy: nbgrader's Gradebook may write to what it opens.
    book = work / "templates" / f"{folder}.db"
    book.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached / "gradebook.db", book)
    gradebooks.setdefault(name, book)
    cells[(name, root)] = work / "templates" / f"{folder}.cells.json"
    data = export_cells(f"sqlite:///{book}", name)
    cells[(name, root)].write_text(json.dumps(data), encoding="utf-8")
    return data


def stamp_of_root(root: str) -> str:
    """The release a jobs' root names: its digest, or "current"."""
    return Path(root).name if root else "current"


def _one_definition(
    graded: dict[str, dict[str, tuple]], held: dict[str, tuple] | None = None
) -> None:
    """A course gradebook holds one definition per lesson (nbgrader's model):
    refuse a batch whose releases of one lesson differ in test cells or points,
    from each other or from the definition the gradebook ``held`` already.

    Raises:
        ValueError: naming the lesson, the releases and what to do.
    """

    def text(value: tuple) -> str:
        return json.dumps(value, sort_keys=True)

    for name, found in graded.items():
        ours = held.get(name) if held else None
        if ours is not None and any(text(v) != text(ours) for v in found.values()):
            raise ValueError(
                f"{name}: the course gradebook holds this lesson with other test "
                f"cells or points than release(s) {', '.join(sorted(found))} "
                "(an earlier --rules current run gave it another release's), and "
                "it holds one definition per lesson. Grade under the gradebook's "
                "rules, the current release's: --rules current (or without the "
                "gradebook: --no-gradebook)"
            )
        if len({text(v) for v in found.values()}) > 1:
            raise ValueError(
                f"{name}: the submissions carry releases ({', '.join(sorted(found))}) "
                "whose test cells or points differ, and the course gradebook holds "
                "one definition per lesson. Grade them all under one: --rules "
                "current, or grade without the gradebook (--no-gradebook)"
            )


def _current_first(key: tuple[str, str]) -> tuple[str, bool, str]:
    return (key[0], bool(key[1]), key[1])
