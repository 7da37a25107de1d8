"""Intake: find the submissions to grade, without one student's file harming another.

``SOURCE`` may mix, in one folder or ``.zip``:

* the nbgrader layout, ``[submitted/]<student>/<lesson>/<lesson>.ipynb``: the
  notebook the gradebook names is graded, an extra copy beside it is listed;
* loose notebooks, as a learning platform exports them: the student id is the
  file name without the lesson name, or comes from ``--map``;
* per-student folders, ``<student>/<lesson>.ipynb``.

Each notebook is attributed on its own, and one that cannot be (no lesson, no
student, another lesson than ``--lesson``) is listed with the reason. A course
root (``submitted/`` beside ``gradebook.db``, ``release/``...) is read in
``submitted/`` only, and what a grading run wrote (its output folder's
``autograded/``, ``results/``, ``.work/``) is never a submission. A zip is
unpacked as a stream (:mod:`autograder.classgrade.unzip`), with limits.

Two files that map to one student and lesson are a conflict for the instructor
to resolve: neither is graded, and both are listed; so are student ids that
differ only in case or Unicode form (:mod:`autograder.classgrade.screen`, which
also refuses links). A notebook that is not valid JSON gets an ``unreadable``
row. The last problem line sums up what intake did not grade: nothing is left
out without a line, save folders that hold no submission (hidden ones, what a
grading run wrote, a course root's other folders) and macOS's zip litter.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from autograder.classgrade.claims import (
    Intake,
    Submission,
    claimed,
    digest,
    label,
)
from autograder.classgrade.late import read_timestamp
from autograder.classgrade.screen import (
    by_any_form,
    hold_twins,
    id_problem,
    links_under,
    same_name_notes,
)
from autograder.classgrade.unzip import (
    MAX_ENTRIES,
    MAX_ENTRY_BYTES,
    MAX_TOTAL_BYTES,
    IntakeError,
    extract_zip,
    shown,
    student_id,
)
from autograder.lessons import lesson_names

__all__ = [
    "MAX_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MAX_TOTAL_BYTES",
    "Intake",
    "IntakeError",
    "Submission",
    "collect_submissions",
    "digest",
    "extract_zip",
    "shown",
    "student_id",
]


def _notebook_problem(path: Path) -> str:
    """Why ``path`` is not a notebook, or "" (a large file is left to the grader)."""
    if path.stat().st_size > MAX_ENTRY_BYTES:
        return ""
    raw = path.read_bytes()
    if not raw.strip():
        return "the file is empty"
    try:
        notebook = json.loads(raw)
    except ValueError as exc:
        return f"not valid JSON ({str(exc)[:80]})"
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return "JSON, but not a notebook (no list of cells)"
    return ""


#: What marks a folder as an nbgrader course root (besides ``submitted/``):
#: then only ``submitted/`` holds submissions.
_COURSE_ROOT = ("gradebook.db", "nbgrader_config.py", "autograded", "release", "source")
#: What a grading run writes into its output folder: never submissions.
_OUTPUT_PARTS = ("autograded", "feedback", "results", ".work")


def _lesson_in(name: str, known: list[str]) -> str | None:
    """The lesson a file or folder name names, in any case."""
    low = name.lower()
    return next((n for n in known if n.lower() in low), None)


def _without(lesson: str, name: str) -> str:
    """The student id a name gives once the lesson is taken out of it."""
    return student_id(re.sub(re.escape(lesson), "", name, flags=re.I))


def _layout_folders(source: Path) -> list[Path]:
    """The ``<student>/<lesson>/`` folders of an nbgrader layout in ``source``."""
    known = lesson_names()
    return [
        p
        for p in sorted(source.glob("*/*"))
        if p.is_dir()
        and not p.parent.name.startswith(".")  # hidden: not read
        and any(p.name.lower() == n.lower() for n in known)
    ]


def _outputs_under(source: Path) -> list[Path]:
    """What earlier grading runs wrote below ``source`` (an output folder is
    one with ``grades.csv`` or a run lock beside ``results/``), to leave out."""
    found = []
    for marker in [*source.rglob("grades.csv"), *source.rglob(".course-grade.lock")]:
        folder = marker.parent
        found += [folder / part for part in _OUTPUT_PARTS]
    return found


def _nbgrader_layout(
    folders: list[Path], lesson: str | None, links: list[Path]
) -> Intake:
    """Submissions of an nbgrader layout's ``<student>/<lesson>/`` folders;
    ``links`` (already listed) are not read."""
    found = Intake()
    known = lesson_names()
    for folder in folders:
        name = next(n for n in known if n.lower() == folder.name.lower())
        if lesson and name != lesson:
            continue  # another lesson's: not asked for, so not a problem
        student = folder.parent.name
        if shown(student) != student:
            found.problems.append(
                f"{shown(student)}: folder name is not valid UTF-8, graded as "
                f"{student_id(shown(student))}"
            )
            student = student_id(shown(student))
        elif why := id_problem(student):
            where = f"{student!r}/{folder.name}"
            found.problems.append(
                f"{where}: skipped, the folder name is not a usable student id "
                f"({why}); rename the folder, then grade again"
            )
            found.not_graded.append(f"{where} (not a usable student id)")
            continue
        notebook = next(
            (p for p in folder.glob("*.ipynb") if p.stem.lower() == name.lower()),
            folder / f"{name}.ipynb",
        )
        for stray in sorted(folder.glob("*.ipynb")):
            if stray != notebook and stray not in links:
                found.problems.append(
                    f"{student}/{folder.name}: extra file {shown(stray.name)} "
                    f"ignored (the graded notebook is {notebook.name})"
                )
                found.not_graded.append(
                    f"{student}/{folder.name}/{shown(stray.name)} (an extra file)"
                )
        if notebook in links:
            continue  # listed with the links, and not read
        if notebook.is_file():
            linked = (folder / "timestamp.txt") in links  # never read
            when, problem = ("", "") if linked else read_timestamp(folder)
            if problem:
                found.problems.append(problem)
            found.submissions.append(
                Submission(student, name, notebook, digest(notebook), when)
            )
        else:
            found.problems.append(f"{student}/{folder.name}: no {notebook.name}")
    return found


def _loose_files(
    source: Path,
    only: str | None,
    name_map: dict[str, str] | None,
    times: dict[str, str],
    zip_times: dict[Path, str],
    claims: dict[tuple[str, str], list[Path]],
    covered: list[Path],
) -> Intake:
    """Loose notebooks under ``source``, outside the layout's ``covered``
    folders: the student from ``--map``, the file name without the lesson
    (``alice_01_devices.ipynb``), or the folder it is in (``alice/01_devices.ipynb``).
    ``claims`` holds the layout's (student, lesson) pairs, and gets these. A
    file that names a lesson but is no notebook (``alice_01_devices.pdf``) is
    listed; other files are not submissions (``--map``'s CSV, a README)."""
    found = Intake()
    known = lesson_names()
    for path in sorted(source.rglob("*")):
        inside = path.relative_to(source).parts
        if any(part.startswith(".") for part in inside[:-1]):
            continue  # hidden folders: .ipynb_checkpoints, .work, .cache, .exchange
        if any(path.is_relative_to(f) for f in covered):
            continue  # the layout's, an earlier run's, or a link (all listed)
        named = only if only and only.lower() in path.name.lower() else None
        named = named or _lesson_in(path.name, known)
        name, where = shown(path.name), shown(str(path.relative_to(source)))
        if path.suffix.lower() != ".ipynb" or not path.is_file():
            if named and path.is_file() or path.suffix.lower() == ".ipynb":
                what = "a folder" if path.is_dir() else "not a notebook (.ipynb)"
                found.problems.append(
                    f"{where}: skipped, {what}; if it is a submission, ask for "
                    "the notebook file"
                )
                found.not_graded.append(f"{where} ({what})")
                found.skipped += 1
            continue
        if only and named not in (None, only):
            found.not_graded.append(f"{where} (a notebook of {named}, not {only})")
            continue
        lesson = only or named
        if lesson is None:
            found.unattributed += 1
            found.not_graded.append(
                f"{where} (cannot tell the lesson: name it like alice_01_devices.ipynb,"
                " or pass --lesson)"
            )
            continue
        if name_map is not None and path.name in name_map:
            student = student_id(name_map[path.name])
            if why := id_problem(name_map[path.name]):
                found.unattributed += 1
                found.not_graded.append(
                    f"{where} (--map gives it {name_map[path.name]!r}, not a usable "
                    f"student id: {why}; correct its row)"
                )
                continue
        else:
            student = _without(lesson, path.stem)
            folder = path.parent
            while not student and folder != source:  # alice/, 01_devices-alice/
                student = _without(lesson, shown(folder.name))
                folder = folder.parent
        if not student:
            found.unattributed += 1
            found.not_graded.append(
                f"{where} (cannot tell the student: name it like "
                f"alice_{lesson}.ipynb, put it in a folder named after the student, "
                "or give it a row in --map)"
            )
            continue
        if name != path.name:
            found.problems.append(
                f"{name}: file name is not valid UTF-8, graded as {student}"
            )
        claims.setdefault((student, lesson), []).append(path)
    return found


def collect_submissions(
    source: Path,
    lesson: str | None,
    workdir: Path,
    name_map: dict[str, str] | None = None,
    times: dict[str, str] | None = None,
) -> tuple[list[Submission], list[str]]:
    """Find the submissions in ``source``; return them and the problems found
    (:func:`collect`, which also counts what was left out)."""
    found = collect(source, lesson, workdir, name_map, times)
    return found.submissions, found.problems


def collect(
    source: Path,
    lesson: str | None,
    workdir: Path,
    name_map: dict[str, str] | None = None,
    times: dict[str, str] | None = None,
) -> Intake:
    """Find the submissions in ``source``, in any mix of the layouts above:
    an nbgrader layout (under ``submitted/`` or not), loose notebooks and
    per-student folders side by side, each notebook attributed on its own.

    ``times`` gives loose files their submission time by file name (the
    ``submitted_at`` column of ``--map``); it wins over a zip entry's date.
    Whatever is not graded (a skipped zip entry, a conflict, a notebook that
    cannot be read) is listed in the last problem line, ``intake: ...``.

    Raises:
        IntakeError: ``source`` does not exist, is a broken zip, or a zip over
            the entry count or the total size.
    """
    source = Path(source)
    problems: list[str] = []
    skipped: list[str] = []
    zip_times: dict[Path, str] = {}
    if not source.exists():
        raise IntakeError(f"{source} does not exist")
    if source.is_file() and source.suffix.lower() == ".zip":
        unpacked = workdir / "unzipped"
        shutil.rmtree(unpacked, ignore_errors=True)
        problems += extract_zip(source, unpacked, times=zip_times, skipped=skipped)
        source = unpacked
    # A course root holds submissions in submitted/ only; below it, what
    # earlier runs wrote (autograded copies, templates) is no submission either.
    if (source / "submitted").is_dir() and any(
        (source / m).exists() for m in _COURSE_ROOT
    ):
        source = source / "submitted"
    outside = _outputs_under(source)
    own = Path(workdir).resolve().parent  # this run's output folder: no news
    for folder in sorted({o.parent for o in outside if o.parent.resolve() != own}):
        problems.append(
            f"{shown(str(folder.relative_to(source)) or '.')}: an earlier grading "
            "run's output folder; its autograded/, feedback/, results/ and .work/ "
            "are not read"
        )
    out = Path(workdir).resolve().parent
    if out.is_relative_to(source.resolve()):
        here = source / out.relative_to(source.resolve())
        outside += [here / part for part in _OUTPUT_PARTS]
    links, refused, left_out = links_under(source, outside)
    problems += refused
    skipped += left_out
    outside += links
    folders = [
        f
        for f in _layout_folders(source / "submitted") + _layout_folders(source)
        if not any(f.is_relative_to(o) for o in outside)
    ]
    layout = _nbgrader_layout(folders, lesson, links)
    claims = {(s.student, s.lesson): [s.path] for s in layout.submissions}
    outside += folders
    times = by_any_form(times) or {}  # a name typed NFC finds a file named NFD
    loose = _loose_files(
        source, lesson, by_any_form(name_map), times, zip_times, claims, outside
    )
    problems += same_name_notes(source, claims)
    found = claimed(source, claims, layout, loose, times, zip_times)
    in_layout = {s.path for s in layout.submissions}
    from_zip = [
        s
        for s in found.submissions
        if s.path not in in_layout and s.path in zip_times and s.path.name not in times
    ]
    if from_zip:
        problems.append(
            f"{len(from_zip)} submission time(s) taken from the zip's file dates "
            "(the time each file was last changed, read as UTC when the zip does "
            "not say); for exact times give --map a submitted_at column"
        )
    hold_twins(found, in_layout)
    for sub in found.submissions:
        why = _notebook_problem(sub.path)
        if why:
            found.not_graded.append(f"{label(sub, in_layout)} ({why})")
    not_graded = skipped + found.not_graded
    found.skipped = len(skipped) + loose.skipped
    if not_graded:
        found.problems.append(
            f"intake: {len(found.submissions)} notebook(s) to grade; "
            f"{len(not_graded)} not graded: {'; '.join(not_graded)}"
        )
    found.problems = problems + found.problems
    return found
