"""Late submissions: when each one came in, and nbgrader's penalty for it.

The due date is the lesson's in the course gradebook (``nbgrader db assignment
add LESSON --duedate=...``, or ``course grade --due``). The submission time comes
from ``timestamp.txt`` in an nbgrader ``submitted/`` folder, from a zip entry's
date, or from a ``submitted_at`` column in the ``--map`` CSV. The penalty is
nbgrader's: :class:`nbgrader.preprocessors.AssignLatePenalties` with the plugin
the course config names (``c.AssignLatePenalties.plugin_class``; nbgrader's own
``LateSubmissionPlugin`` knows ``none`` and ``zero``). :class:`PerHourPenalty`
is the per-hour example the Instructor guide shows.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float, List, Unicode
from traitlets.config import Configurable


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
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: What an instructor may write, shown whenever a date is refused.
EXAMPLES = "2026-12-01T17:00+01:00, 2026-12-01 16:00Z or 2026-12-01 17:00 Europe/Paris"


class DueDates(Configurable):
    """Date formats the course accepts beyond ISO 8601, in ``nbgrader_config.py``::

        c.DueDates.formats = ["%d.%m.%Y %H:%M"]
        c.DueDates.time_zone = "Europe/Paris"

    A format without ``%z`` is read in ``time_zone``, which it then needs.
    """

    formats = List(
        Unicode(), help="strptime formats accepted for --due and --map times."
    ).tag(config=True)
    time_zone = Unicode(
        "", help="IANA zone of the formats without %z, e.g. Europe/Paris."
    ).tag(config=True)


def zone_named(name: str, text: str) -> Any:
    """An IANA zone or ``UTC`` by name; never the machine's own."""
    from dateutil import tz

    zone = None
    if name and not name.startswith("/") and name.lower() != "localtime":
        zone = tz.UTC if name.upper() in ("UTC", "Z", "GMT") else tz.gettz(name)
    if zone is None:
        raise ValueError(
            f"unknown time zone {name!r} in {text!r}; use an IANA name "
            "such as Europe/Paris, or an offset such as +0100"
        )
    return zone


def shown_time(when_utc: datetime, zone: str = "") -> str:
    """A stored time (naive UTC) as students and instructors read it: in the
    course's zone (``c.DueDates.time_zone``) with UTC beside it, else UTC."""
    when = when_utc.replace(tzinfo=timezone.utc)
    utc = when.strftime("%Y-%m-%d %H:%M UTC")
    if not zone:
        return utc
    local = when.astimezone(zone_named(zone, "c.DueDates.time_zone"))
    return f"{local:%Y-%m-%d %H:%M} {zone} ({utc})"


def _in_zone(when: datetime, zone: Any, text: str, strict: bool = True) -> datetime:
    """``when`` (naive) read in ``zone``; a time a clock change skips or
    repeats there is refused (it names no one moment), unless not ``strict``
    (a time a tool wrote: read as dateutil, and nbgrader, read it)."""
    from dateutil import tz

    when = when.replace(tzinfo=zone)
    if not strict:
        return when
    if not tz.datetime_exists(when) or tz.datetime_ambiguous(when):
        raise ValueError(
            f"{text!r} is skipped or repeated when the clocks change in that zone; "
            "give the offset instead, e.g. 2026-10-25 02:30+02:00"
        )
    return when


_NBGRADER_FORM = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\S+) (\S+)")


def _nbgrader_form(text: str, strict: bool = True) -> datetime | None:
    """``2026-12-01 17:00[:00[.5]] ZONE`` (nbgrader's own), or None."""
    from dateutil import parser

    match = _NBGRADER_FORM.fullmatch(text)
    if match is None:
        return None
    day, clock, zone = match.groups()
    try:
        when = parser.isoparse(f"{day}T{clock}")
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a date and time ({exc})") from None
    if when.tzinfo is not None:
        raise ValueError(f"{text!r} gives two time zones; give one")
    if _OFFSET.fullmatch(zone):
        return parser.isoparse(f"{day}T{clock}{zone}")
    return _in_zone(when, zone_named(zone, text), text, strict)


def _course_format(text: str, config: Any) -> datetime | None:
    """``text`` read with the first of the course's ``c.DueDates.formats``
    that reads it, or None."""
    dates = DueDates(config=config)
    for form in dates.formats:
        if "%Z" in form:
            raise ValueError(
                f"c.DueDates.formats entry {form!r} uses %Z, which strptime reads "
                "as no zone at all: use %z (an offset), or leave the zone out and "
                "set c.DueDates.time_zone"
            )
        try:
            when = datetime.strptime(text, form)
        except ValueError:
            continue
        if when.tzinfo is not None:
            return when
        if not dates.time_zone:
            raise ValueError(
                f"{text!r} matches c.DueDates.formats entry {form!r}, which has no "
                "%z: set c.DueDates.time_zone (e.g. Europe/Paris)"
            )
        return _in_zone(when, zone_named(dates.time_zone, text), text)
    return None


def parse_time(text: str, config: Any = None) -> datetime:
    """A due date or submission time an instructor wrote, as nbgrader stores
    it: naive UTC. Only unambiguous forms are read:

    * a format the course config names (:class:`DueDates`), tried first;
    * ISO 8601 with a zone or an offset (``2026-12-01T16:00Z``,
      ``2026-12-01 17:00+01:00``);
    * nbgrader's ``date time ZONE`` with an ISO date, ZONE being ``UTC``, an
      IANA name (``Europe/Paris``) or an offset (``+0100``).

    Raises:
        ValueError: anything else (``01.12.2026 09:57``, ``12/01/2026 5pm``, a
            time without a zone, an unknown zone, a local time that the clock
            change skips or repeats), with examples of what is read.
    """
    from dateutil import parser

    text = " ".join(str(text).split())
    when = _course_format(text, config) if config is not None else None
    if when is None and _ISO_DATE.match(text):
        try:
            when = parser.isoparse(text)
        except ValueError as exc:
            when = _nbgrader_form(text)
            if when is None:
                raise ValueError(
                    f"{text!r} is not a date and time ({exc}); write ISO 8601 "
                    f"with a zone, e.g. {EXAMPLES}"
                ) from None
    if when is None:
        raise ValueError(
            f"{text!r} is not a date and time this course reads: write ISO 8601 "
            f"with a zone, e.g. {EXAMPLES} (or name a format in the course "
            "config: c.DueDates.formats)"
        )
    if when.tzinfo is None:
        raise ValueError(
            f"{text!r} has no time zone, so it could be any of 24 hours: add one, "
            f"e.g. {EXAMPLES}"
        )
    return when.astimezone(timezone.utc).replace(tzinfo=None)


def parse_stamp(text: str) -> datetime:
    """A time the tools wrote (nbgrader's ``timestamp.txt``, a zip entry's date,
    a stored result): as :func:`parse_time`, and a time without a zone is UTC,
    as both write it. A ``timestamp.txt`` in another format (nbgrader's
    ``Exchange.timestamp_format`` is configurable) is read as nbgrader reads
    it, with dateutil's parser.

    Raises:
        ValueError: not a date and time.
    """
    from dateutil import parser

    text = " ".join(str(text).split())
    try:
        when = parser.isoparse(text) if _ISO_DATE.match(text) else None
    except ValueError:
        when = None
    if when is None:
        try:
            when = _nbgrader_form(text, strict=False)
        except ValueError:
            when = None
    if when is None:
        try:
            when = parser.parse(text)
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"{text!r} is not a date and time ({exc})") from None
    if when.tzinfo is None:
        return when
    return when.astimezone(timezone.utc).replace(tzinfo=None)


def read_timestamp(folder: Path) -> tuple[str, str]:
    """The ``timestamp.txt`` in ``folder`` as ISO text; and a problem, if any.

    No file gives ``("", "")``; an empty or unreadable one gives ``""`` and a
    problem line (the submission then counts as on time).
    """
    path = Path(folder) / "timestamp.txt"
    if not path.is_file():
        return "", ""
    try:
        return parse_stamp(path.read_text(encoding="utf-8")).isoformat(), ""
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return "", f"{path}: cannot read the submission time ({exc}); counted on time"


def penalty_plugin(config: Any) -> Any:
    """The late-submission plugin the course config names (nbgrader's own
    lookup, :class:`~nbgrader.preprocessors.AssignLatePenalties`)."""
    from nbgrader.preprocessors import AssignLatePenalties

    step = AssignLatePenalties(config=config)
    step.init_plugin()
    return step.plugin_inst
