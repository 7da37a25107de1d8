"""Before any grading: each lesson's due date and each student's lateness.

:func:`preview` reads the due date a run will use (``--due``, parsed strictly
by :func:`autograder.classgrade.late.parse_time`, or the lesson's in the course
gradebook), and how late each submission is against it, with the penalty the
course's plugin would take from a full-marks notebook. ``course grade`` prints
it before the first job starts, and stops (unless ``--yes``) when more than
half of the class would lose more than half of its marks: a wrong due date
should cost one rerun, not a gradebook of zeros.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from autograder.classgrade.intake import Submission


@dataclass
class Late:
    student: str
    lesson: str
    seconds: float
    penalty: float  # what the plugin takes from full marks
    points: float  # the lesson's full marks


@dataclass
class Lateness:
    """What :func:`preview` found."""

    due: dict[str, tuple[datetime, str]] = field(default_factory=dict)  # (UTC, from)
    late: list[Late] = field(default_factory=list)
    on_time: int = 0
    untimed: int = 0  # no submission time: counted on time
    counted: dict[str, int] = field(default_factory=dict)  # submissions per lesson

    def severe(self) -> list[Late]:
        """The submissions that would lose more than half of their marks."""
        return [x for x in self.late if x.points > 0 and x.penalty > x.points / 2]

    def lines(self, shown: int = 20) -> list[str]:
        """What the run prints before grading."""
        out = [
            f"due date of {lesson}: {when:%Y-%m-%d %H:%M:%S} UTC ({source})"
            for lesson, (when, source) in sorted(self.due.items())
        ]
        if not self.due:
            return out
        total = len(self.late) + self.on_time
        out.append(
            f"lateness: {len(self.late)} of {total} submission(s) late, "
            f"{self.on_time} on time"
            + (f" ({self.untimed} without a submission time)" if self.untimed else "")
        )
        for x in sorted(self.late, key=lambda x: -x.seconds)[:shown]:  # latest first
            out.append(
                f"  {x.student}/{x.lesson}: {_duration(x.seconds)} late, "
                f"penalty {x.penalty:g} of {x.points:g} on full marks"
            )
        if len(self.late) > shown:
            out.append(f"  ... and {len(self.late) - shown} more")
        return out


def _duration(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.2f} h"
    return f"{seconds / 86400:.1f} days"


#: Without a gradebook, the due dates live beside the results, in this file.
DUE_FILE = "due_dates.json"


def kept_due_dates(out_dir: Path) -> dict[str, datetime]:
    """The due dates a run without a gradebook kept (UTC, naive)."""
    import json

    path = Path(out_dir) / DUE_FILE
    if not path.is_file():
        return {}
    found = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): datetime.fromisoformat(str(v)) for k, v in found.items()}


def keep_due_dates(out_dir: Path, dates: dict[str, datetime]) -> None:
    """Keep ``dates`` beside the results (without a gradebook)."""
    import json

    from autograder.classgrade.store import write_text

    text = json.dumps({k: v.isoformat() for k, v in sorted(dates.items())}, indent=1)
    write_text(Path(out_dir) / DUE_FILE, text + "\n")


def penalty_for(plugin: Any, student: str, score: float, seconds: float) -> float:
    """Points off ``score`` for ``seconds`` late, as the plugin gives them and
    nbgrader caps them: never below 0, never above the score."""
    if seconds <= 0:
        return 0.0
    penalty = plugin.late_submission_penalty(student, score, seconds)
    return min(max(float(penalty or 0.0), 0.0), float(score))


def preview(
    submissions: list[Submission],
    due: str | None,
    lesson: str | None,
    gradebook: Path | None,
    config: Any,
    points_of: Any = None,
    kept: dict[str, datetime] | None = None,
) -> Lateness:
    """Due dates and lateness for ``submissions``, as the gradebook (or,
    without one, the results folder: ``kept``) will have them after the run
    (``due`` replaces ``lesson``'s due date); a penalty is worked out on
    ``points_of(submission)``, the full marks of the release it is graded
    under (default: the current release's).

    Raises:
        ValueError: ``due`` is not a date this course reads (with examples).
    """
    from autograder.classgrade.late import parse_stamp, parse_time, penalty_plugin
    from autograder.lessons.releases import grade_points

    lessons = {s.lesson for s in submissions} | ({lesson} if lesson else set())
    from autograder.classgrade.gradebook import due_state

    stored, extensions = due_state(gradebook, lessons)
    found = Lateness()
    for name, when in stored.items():
        found.due[name] = (
            when,
            "the gradebook's; nbgrader reads a date given without a zone as UTC: "
            "if this is not the time you meant, set it with --due 'DATE ZONE'",
        )
    for name, when in (kept or {}).items():
        if name in lessons:
            found.due[name] = (when, "the results folder's")
    if due is not None and lesson is not None:
        found.due[lesson] = (parse_time(due, config), f"--due {due!r}")
    if not found.due:
        return found
    plugin = penalty_plugin(config)
    if points_of is None:
        current = {name: sum(grade_points(name).values()) for name in found.due}

        def points_of(sub: Submission) -> float:
            return current[sub.lesson]

    for sub in submissions:
        if sub.lesson not in found.due:
            continue
        found.counted[sub.lesson] = found.counted.get(sub.lesson, 0) + 1
        if not sub.submitted_at:
            found.on_time += 1
            found.untimed += 1
            continue
        deadline = found.due[sub.lesson][0]
        extension = extensions.get((sub.student, sub.lesson))
        if extension is not None:
            deadline = deadline + extension
        seconds = (parse_stamp(sub.submitted_at) - deadline).total_seconds()
        if seconds <= 0:
            found.on_time += 1
            continue
        full = points_of(sub)
        penalty = penalty_for(plugin, sub.student, full, seconds)
        found.late.append(Late(sub.student, sub.lesson, seconds, penalty, full))
    return found


def check(found: Lateness, yes: bool) -> None:
    """Stop a run that would take more than half of the marks from more than
    half of a lesson's class, unless the instructor said ``--yes`` (each
    lesson on its own: one wrong due date among several is caught).

    Raises:
        ValueError: with the due date as read, and what to do.
    """
    if yes:
        return
    for lesson, (when, source) in sorted(found.due.items()):
        total = found.counted.get(lesson, 0)
        severe = [x for x in found.severe() if x.lesson == lesson]
        if not total or len(severe) * 2 <= total:
            continue
        shown = "\n".join(found.lines(shown=10))
        raise ValueError(
            f"{len(severe)} of {total} submissions of {lesson} would lose more than "
            f"half of their marks to the late penalty ({lesson} due "
            f"{when:%Y-%m-%d %H:%M} UTC, {source}). If that due date is wrong, fix "
            f"it (--due, ISO 8601 with a zone); if it is right, rerun with --yes\n"
            f"{shown}"
        )


def late_into(result: Any, found: Lateness, plugin: Any) -> bool:
    """Without a gradebook the results are the store: a graded result's
    lateness and penalty (on its own score, as nbgrader's
    ``AssignLatePenalties`` works it out) against ``found``'s due date of
    its lesson. Returns whether they changed."""
    from autograder.classgrade.late import parse_stamp

    due = found.due.get(result.lesson)
    if result.status != "graded" or due is None:
        return False  # another lesson's row keeps what it has
    seconds = 0.0
    if result.submitted_at:
        seconds = (parse_stamp(result.submitted_at) - due[0]).total_seconds()
    before = (result.seconds_late, result.late_penalty)
    result.seconds_late = max(0.0, seconds)
    result.late_penalty = penalty_for(plugin, result.student, result.score, seconds)
    return (result.seconds_late, result.late_penalty) != before


def lateness(
    request: Any,
    submissions: list[Submission],
    lesson: str | None,
    ruled: dict[Path, Any],
    config: Any,
) -> Lateness:
    """For :func:`autograder.classgrade.request.plan`: due dates and lateness
    as the gradebook will have them, each penalty
    on the full marks of the release the submission is graded under; stops a
    run whose penalties look like a wrong due date (unless ``yes``)."""
    from autograder.lessons import releases
    from autograder.lessons.releases import grade_points

    full: dict[tuple[str, str], float] = {}

    def points_of(sub: Submission) -> float:
        rules = ruled.get(sub.path)
        key = rules.key if rules is not None else (sub.lesson, "")
        if key not in full:
            release = rules.release if rules else releases.Release(sub.lesson)
            full[key] = sum(grade_points(release).values())
        return full[key]

    found = preview(
        submissions,
        request.due,
        lesson,
        request.gradebook,
        config,
        points_of,
        None if request.gradebook else kept_due_dates(Path(request.out_dir)),
    )
    check(found, request.yes)
    return found


def plugin(request: Any, lateness: Lateness, config: Any) -> Any:
    """The late-penalty plugin a run without a gradebook works penalties
    out with (the gradebook's record does, with one)."""
    if request.gradebook is not None or not lateness.due:
        return None
    from autograder.classgrade.late import penalty_plugin

    return penalty_plugin(config)
