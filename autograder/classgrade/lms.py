"""Grade files a learning platform imports, as nbgrader export plugins.

::

    nbgrader export --exporter=autograder.classgrade.lms.CanvasExport --to canvas.csv
    nbgrader export --exporter=autograder.classgrade.lms.MoodleExport --to moodle.csv

Both read nbgrader's gradebook (``gradebook.db``), one row per student, scores
in points (late penalties already taken off, as ``nbgrader export`` does), never
percentages. A student who submitted nothing gets an empty cell, not a zero, so
the platform shows the work as missing. Each platform's own student identifier
comes from the roster: ``nbgrader db student import roster.csv`` with an
``lms_user_id`` column (and ``email``), see the Instructor guide
(``docs/guides/instructor.md``).

**Canvas** (gradebook import, "Grades > Import"): the columns Canvas's own
export has, ``Student, ID, SIS User ID, SIS Login ID, Section``, then one
column per lesson, titled ``<name> (<Canvas assignment id>)`` when
``CanvasExport.assignment_ids`` maps the lesson to its Canvas id (Canvas then
updates that assignment) or just ``<name>`` (Canvas offers to create it).
The second row is Canvas's ``Points Possible`` row. ``ID`` is the Canvas user
id (the roster's ``lms_user_id``). ``SIS User ID`` and ``SIS Login ID`` stay
empty unless the instructor names the roster field that holds them
(``CanvasExport.sis_user_id = "id"`` when the nbgrader ids are the
institution's SIS ids; ``CanvasExport.sis_login_id = "email"``). A student
whom no column identifies is left out, with a warning; one without an
``lms_user_id`` but with a SIS id is kept, with a warning.

**Moodle** ("Grades > Import > CSV file"): an identifying column
(``Email address`` by default; ``MoodleExport.identifier = "ID number"`` uses
the roster's ``lms_user_id`` instead), then one column per lesson holding points;
Moodle's import page maps each column to a grade item.

LTI grade passback (sending grades to the platform from a running tool) is out
of scope: it needs the course registered as an LTI tool with the platform's
keys, and a server the platform can reach; a file the instructor uploads needs
neither.
"""

from __future__ import annotations

import csv
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Dict, Unicode

from autograder.classgrade.reports import final_score


def _lessons(plugin: ExportPlugin, gradebook: Gradebook) -> list[Any]:
    """The lessons the plugin's ``assignment`` list selects (default: all)."""
    only = {str(a) for a in plugin.assignment}
    return [
        a
        for a in sorted(gradebook.assignments, key=lambda a: a.name)
        if not only or a.name in only
    ]


def _rows(plugin: ExportPlugin, gradebook: Gradebook, lessons: list[Any]):
    """(student, [score or None per lesson]) for the selected students."""
    only = {str(s) for s in plugin.student}
    for student in sorted(gradebook.students, key=lambda s: s.id):
        if only and student.id not in only:
            continue
        scores = []
        for lesson in lessons:
            try:
                submission = gradebook.find_submission(lesson.name, student.id)
            except MissingEntry:
                scores.append(None)
            else:  # as nbgrader's own export: manual scores in, penalty off
                penalty = submission.late_submission_penalty
                scores.append(final_score(submission.score, penalty))
        yield student, scores


#: The roster fields nbgrader keeps (``nbgrader db student import``).
_ROSTER = ("id", "email", "lms_user_id", "first_name", "last_name")


def _points(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


class CanvasExport(ExportPlugin):
    """Canvas's gradebook import CSV (see the module)."""

    assignment_ids = Dict(
        {},
        help="Canvas assignment id of each lesson, e.g. {'01_devices': '12345'}",
    ).tag(config=True)
    section = Unicode("", help="the Section column's value").tag(config=True)
    sis_user_id = Unicode(
        "",
        help="roster field for Canvas's SIS User ID: id, email, lms_user_id, "
        "first_name or last_name ('' leaves the column empty)",
    ).tag(config=True)
    sis_login_id = Unicode(
        "", help="roster field for Canvas's SIS Login ID (as sis_user_id)"
    ).tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "canvas_grades.csv"
        lessons = _lessons(self, gradebook)
        titles = [
            f"{a.name} ({self.assignment_ids[a.name]})"
            if a.name in self.assignment_ids
            else a.name
            for a in lessons
        ]
        sis = (self.sis_user_id, self.sis_login_id)
        for name in sis:
            if name and name not in _ROSTER:
                raise ValueError(
                    f"CanvasExport SIS field {name!r} is not a roster field: use one "
                    f"of {', '.join(_ROSTER)}"
                )
        lost: list[str] = []
        unmatched: list[str] = []
        self.log.info("Exporting grades for Canvas to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(
                ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *titles]
            )
            writer.writerow(
                [
                    "Points Possible",
                    "",
                    "",
                    "",
                    "",
                    *(f"{a.max_score:g}" for a in lessons),
                ]
            )
            for student, scores in _rows(self, gradebook, lessons):
                name = ", ".join(
                    p for p in (student.last_name, student.first_name) if p
                )
                ids = [student.lms_user_id or "", *map(_field(student), sis)]
                if not student.lms_user_id:
                    (lost if not any(ids) else unmatched).append(student.id)
                if not any(ids):
                    continue
                writer.writerow(
                    [
                        name or student.id,
                        *ids,
                        self.section,
                        *(_points(score) for score in scores),
                    ]
                )
        if unmatched:
            self.log.warning(
                "%d student(s) without lms_user_id in the roster (Canvas's ID), "
                "matched by SIS id only: %s",
                len(unmatched),
                ", ".join(unmatched),
            )
        if lost:
            self.log.warning(
                "Left out %d student(s) without lms_user_id in the roster (Canvas's "
                "ID), and no SIS id configured or present: %s",
                len(lost),
                ", ".join(lost),
            )


def _field(student: Any):
    return lambda name: str(getattr(student, name) or "") if name else ""


class MoodleExport(ExportPlugin):
    """Moodle's grade import CSV (see the module)."""

    identifier = Unicode(
        "Email address",
        help="Moodle's user field to match on: 'Email address' (the roster's "
        "email) or 'ID number' (the roster's lms_user_id)",
    ).tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "moodle_grades.csv"
        if self.identifier not in ("Email address", "ID number"):
            raise ValueError(
                f"MoodleExport.identifier must be 'Email address' or 'ID number', "
                f"not {self.identifier!r}"
            )
        lessons = _lessons(self, gradebook)
        self.log.info("Exporting grades for Moodle to %s", dest)
        missing: list[str] = []
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([self.identifier, *(a.name for a in lessons)])
            for student, scores in _rows(self, gradebook, lessons):
                key = (
                    student.email
                    if self.identifier == "Email address"
                    else (student.lms_user_id)
                )
                if not key:
                    missing.append(student.id)
                    continue
                writer.writerow([key, *(_points(score) for score in scores)])
        if missing:
            self.log.warning(
                "Left out %d student(s) without %s in the roster: %s",
                len(missing),
                self.identifier,
                ", ".join(missing),
            )


__all__ = ["CanvasExport", "MoodleExport"]
