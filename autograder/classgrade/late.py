"""Late submissions: when each one came in, and nbgrader's penalty for it.

The due date is the lesson's in the course gradebook (``nbgrader db assignment
add LESSON --duedate=...``, or ``course grade --due``). The submission time comes
from ``timestamp.txt`` in an nbgrader ``submitted/`` folder, from a zip entry's
date, or from a ``submitted_at`` column in the ``--map`` CSV. The penalty is
nbgrader's: :class:`nbgrader.preprocessors.AssignLatePenalties` with the plugin
the course config names (``c.AssignLatePenalties.plugin_class``; nbgrader's own
``LateSubmissionPlugin`` knows ``none`` and ``zero``). :class:`PerHourPenalty`
is the per-hour example the README shows.
"""

from __future__ import annotations

import logging
import math
import re
from datetime import datetime, timezone
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float


class PerHourPenalty(LateSubmissionPlugin):
    """Take ``points_per_hour`` off for every started hour late, after a grace
    period; never more than the score (nbgrader caps it there too).

    Course config::

        c.AssignLatePenalties.plugin_class = "autograder.classgrade.late.PerHourPenalty"
        c.PerHourPenalty.points_per_hour = 0.5
        c.PerHourPenalty.grace_minutes = 5
    """

    points_per_hour = Float(1.0, help="Points off per started hour late.").tag(
        config=True
    )
    grace_minutes = Float(
        0.0, help="Minutes after the due date that still count as on time."
    ).tag(config=True)

    def late_submission_penalty(
        self, student_id: str, score: float, total_seconds_late: float
    ) -> float | None:
        late = total_seconds_late - 60 * self.grace_minutes
        if late <= 0:
            return None
        hours = math.ceil(late / 3600)
        return min(score, hours * self.points_per_hour)


_OFFSET = re.compile(r"[+-]\d{2}:?\d{2}")


def parse_time(text: str) -> datetime:
    """A submission time or due date as nbgrader stores it: naive UTC.

    Accepts ISO 8601 (``2026-12-01T16:00Z``, ``2026-12-01 17:00+01:00``) and
    nbgrader's ``date time ZONE`` form, where ZONE is ``UTC``, an IANA name
    (``Europe/Paris``) or an offset (``+0100``). A time without a zone is UTC.

    Raises:
        ValueError: not a time, or a zone name this machine does not know.
    """
    from dateutil import parser, tz

    text = text.strip()
    try:
        try:
            when = parser.isoparse(text)
        except ValueError:
            parts = text.split(" ")
            if len(parts) == 3 and not _OFFSET.fullmatch(parts[2]):
                zone = tz.gettz(parts[2])
                if zone is None:
                    raise ValueError(f"unknown time zone {parts[2]!r}") from None
                when = parser.parse(" ".join(parts[:2])).replace(tzinfo=zone)
            else:
                when = parser.parse(text)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{text!r} is not a date and time ({exc})") from None
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc).replace(tzinfo=None)
    return when


def read_timestamp(folder: Path) -> tuple[str, str]:
    """The ``timestamp.txt`` in ``folder`` as ISO text; and a problem, if any.

    No file gives ``("", "")``; an empty or unreadable one gives ``""`` and a
    problem line (the submission then counts as on time).
    """
    path = Path(folder) / "timestamp.txt"
    if not path.is_file():
        return "", ""
    try:
        return parse_time(path.read_text(encoding="utf-8")).isoformat(), ""
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return "", f"{path}: cannot read the submission time ({exc}); counted on time"


_QUIET = logging.getLogger("autograder.classgrade.late")
_QUIET.setLevel(logging.ERROR)


def assign_penalties(db_url: str, submissions: list[tuple[str, str]], config) -> None:
    """Run nbgrader's ``AssignLatePenalties`` on each (student, lesson)."""
    from nbformat.v4 import new_notebook
    from nbgrader.preprocessors import AssignLatePenalties

    step = AssignLatePenalties(config=config)
    step.log = _QUIET  # the run's summary lists late submissions once
    for student, lesson in submissions:
        resources = {
            "nbgrader": {
                "notebook": lesson,
                "assignment": lesson,
                "student": student,
                "db_url": db_url,
            }
        }
        step.preprocess(new_notebook(), resources)
