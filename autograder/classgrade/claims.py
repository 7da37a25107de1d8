"""Who is who at intake: what one notebook to grade is (:class:`Submission`),
what intake found (:class:`Intake`), and the conflicts it never settles by
guessing: two files that claim one student and lesson, and student ids that
differ only in case. Both are held back and listed for the instructor.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from autograder.classgrade.late import parse_stamp
from autograder.classgrade.unzip import _CHUNK, shown


@dataclass(frozen=True)
class Submission:
    """One notebook to grade."""

    student: str
    lesson: str
    path: Path
    digest: str
    submitted_at: str = ""  # ISO, UTC; "" when unknown (counted on time)


@dataclass
class Intake:
    """What was found: submissions to grade, and problems to report."""

    submissions: list[Submission] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    not_graded: list[str] = field(default_factory=list)  # "name (why)"
    skipped: int = 0  # zip entries left out (not a notebook, a bad name, too big)
    unattributed: int = 0  # notebooks without a lesson or a student


def digest(path: Path) -> str:
    """SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def claimed(
    source: Path,
    claims: dict[tuple[str, str], list[Path]],
    layout: Intake,
    loose: Intake,
    times: dict[str, str],
    zip_times: dict[Path, str],
) -> Intake:
    """Both parts together: a (student, lesson) claimed by two files, in one
    layout or across them, is a conflict and neither is graded."""
    found = Intake(problems=layout.problems + loose.problems)
    found.unattributed = loose.unattributed
    found.not_graded = layout.not_graded + loose.not_graded
    held = set()
    for (student, lesson), files in claims.items():
        if len(files) > 1:
            held.add((student, lesson))
            names = ", ".join(shown(str(p.relative_to(source))) for p in files)
            found.problems.append(
                f"conflict: {names} are all {student}/{lesson}; none is graded. "
                "Rename them, or give each its student with --map"
            )
            found.not_graded += [f"{shown(p.name)} (conflict)" for p in files]
    found.submissions = [
        s for s in layout.submissions if (s.student, s.lesson) not in held
    ]
    in_layout = {s.path for s in layout.submissions}
    for (student, lesson), files in claims.items():
        path = files[0]
        if (student, lesson) in held or path in in_layout:
            continue
        when = times.get(path.name) or zip_times.get(path, "")
        if when:
            try:
                when = parse_stamp(when).isoformat()
            except ValueError as exc:
                found.problems.append(f"{shown(path.name)}: {exc}; counted on time")
                when = ""
        found.submissions.append(Submission(student, lesson, path, digest(path), when))
    found.submissions.sort(key=lambda s: (s.lesson, s.student))
    return found


def label(sub: Submission, layout: set[Path]) -> str:
    """How a submission is named in problems: its folder, or its file's name."""
    if sub.path in layout:
        return f"{sub.student}/{sub.lesson}"
    return shown(sub.path.name)
