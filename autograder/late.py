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
from datetime import datetime
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float


class PerHourPenalty(LateSubmissionPlugin):
    """Take ``points_per_hour`` off for every started hour late, after a grace
    period; never more than the score (nbgrader caps it there too).

    Course config::

        c.AssignLatePenalties.plugin_class = "autograder.late.PerHourPenalty"
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


def parse_time(text: str) -> datetime:
    """A submission time as nbgrader reads ``timestamp.txt``: naive UTC.

    Accepts ISO 8601 and nbgrader's ``2026-11-30 14:03:00.123456 UTC`` form; a
    time without a zone is taken as UTC.

    Raises:
        ValueError: the text is not a time.
    """
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text.strip())
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(f"{text.strip()!r} is not a date and time ({exc})") from None


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


def course_config(course_root: Path | None):
    """The traitlets config nbgrader would load at ``course_root``: its
    ``nbgrader_config.py``, or the course's own settings when it has none."""
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.lessons import REPO_ROOT

    path = None
    if course_root is not None and (Path(course_root) / "nbgrader_config.py").is_file():
        path = Path(course_root) / "nbgrader_config.py"
    else:
        path = REPO_ROOT / "autograder" / "nbgrader_config.py"
    return PyFileConfigLoader(path.name, path=str(path.parent)).load_config()


_QUIET = logging.getLogger("autograder.late")
_QUIET.setLevel(logging.ERROR)


def assign_penalties(
    db_url: str, submissions: list[tuple[str, str]], config
) -> dict[tuple[str, str], tuple[float, float]]:
    """Run nbgrader's ``AssignLatePenalties`` on each (student, lesson).

    Returns ``(seconds late, penalty)`` for each, read back from the gradebook.
    """
    from nbformat.v4 import new_notebook
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import AssignLatePenalties

    step = AssignLatePenalties(config=config)
    step.log = _QUIET  # the run's summary lists late submissions once
    found: dict[tuple[str, str], tuple[float, float]] = {}
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
    with Gradebook(db_url) as gradebook:
        for student, lesson in submissions:
            submission = gradebook.find_submission(lesson, student)
            penalty = float(submission.late_submission_penalty or 0.0)
            found[(student, lesson)] = (float(submission.total_seconds_late), penalty)
    return found
