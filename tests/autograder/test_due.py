"""Due dates: read as nbgrader reads them or refused with examples, lateness
shown before grading, and a due date that looks wrong stops the run."""

from __future__ import annotations

import shutil
from datetime import datetime

import pytest

from autograder.classgrade.late import (
    parse_stamp,
    parse_time,
)
from autograder.cli import _read_map, main
from autograder.config.settings import instructor_config
from tests.autograder.test_late import BLANK, LESSON, PLUGIN  # noqa: F401


@pytest.mark.parametrize(
    "text",
    [
        "01.12.2026 09:57",  # read as 12 January by a day-last parser
        "12/01/2026 5pm",  # month or day first?
        "2026-12-01 17:00",  # no zone: any of 24 hours
        "1 Dec 2026 17:00 UTC",
    ],
)
def test_ambiguous_dates_are_refused_with_examples(text):
    with pytest.raises(ValueError) as refused:
        parse_time(text)
    assert "2026-12-01T17:00+01:00" in str(refused.value)


def test_the_course_config_may_name_a_format_with_its_zone():
    from traitlets.config import Config

    config = Config()
    config.DueDates.formats = ["%d.%m.%Y %H:%M"]
    with pytest.raises(ValueError, match="time_zone"):
        parse_time("01.12.2026 09:57", config)
    config.DueDates.time_zone = "Europe/Paris"
    assert parse_time("01.12.2026 09:57", config) == datetime(2026, 12, 1, 8, 57)
    with pytest.raises(ValueError, match="not a date and time"):
        parse_time("12/01/2026 5pm", config)


def _subs(*times):
    from autograder.classgrade.intake import Submission

    return [
        Submission(f"s{i}", LESSON, BLANK, "d", when) for i, when in enumerate(times)
    ]


def test_lateness_is_shown_before_grading_and_a_wrong_due_date_stops():
    from autograder.classgrade import due

    config = instructor_config(None).copy()
    config.AssignLatePenalties.plugin_class = PLUGIN
    config.PerHourPenalty.points_per_hour = 1
    subs = _subs("2026-12-01T08:00:00", "2026-12-01T10:30:00", "")
    found = due.preview(subs, "2026-12-01T10:00+01:00", LESSON, None, config)
    lines = found.lines()
    assert lines[0].startswith(f"due date of {LESSON}: 2026-12-01 09:00:00 UTC")
    assert "--due '2026-12-01T10:00+01:00'" in lines[0]
    assert (
        "1 of 3 submission(s) late, 2 on time (1 without a submission time)"
        in (lines[1])
    )
    assert lines[2].startswith("  s1/01_devices: 1.50 h late, penalty 2 of ")
    due.check(found, yes=False)  # one of three: no question asked
    # A due date a month early: everyone timed is days late, and loses everything.
    early = due.preview(subs, "2026-11-01T10:00Z", LESSON, None, config)
    with pytest.raises(
        ValueError, match="2 of 3 submissions of 01_devices would"
    ) as stop:
        due.check(early, yes=False)
    assert "--yes" in str(stop.value) and "2026-11-01 10:00 UTC" in str(stop.value)
    due.check(early, yes=True)


def test_the_penalty_preview_uses_each_submission_s_own_release_points():
    """A submission graded under a 12-point release is previewed on 12, not
    on the current release's 14."""
    from autograder.classgrade import due

    config = instructor_config(None).copy()
    config.AssignLatePenalties.plugin_class = PLUGIN
    config.PerHourPenalty.points_per_hour = 20  # everything off: the full marks
    subs = _subs("2026-12-01T10:30:00", "2026-12-01T10:30:00")
    own = {"s0": 12.0, "s1": 14.0}
    found = due.preview(
        subs, "2026-12-01T10:00Z", LESSON, None, config, lambda s: own[s.student]
    )
    assert {x.student: (x.penalty, x.points) for x in found.late} == {
        "s0": (12.0, 12.0),
        "s1": (14.0, 14.0),
    }


def test_course_grade_refuses_an_ambiguous_due_date_before_grading(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(BLANK, folder / f"ann_{LESSON}.ipynb")
    args = ["grade", str(folder), "--lesson", LESSON, "--out", str(tmp_path / "o")]
    args += ["--gradebook", str(tmp_path / "gradebook.db")]
    assert main([*args, "--due", "01.12.2026 09:57"]) == 2
    err = capsys.readouterr().err
    assert "'01.12.2026 09:57' is not a date and time this course reads" in err
    assert not (tmp_path / "o" / "grades.csv").exists()
    # a wrong due date: the only submission would lose everything
    (tmp_path / "map.csv").write_text(f"ann_{LESSON}.ipynb,ann,2026-12-01T09:00Z\n")
    args += ["--map", str(tmp_path / "map.csv")]
    config = tmp_path / "nbgrader_config.py"
    config.write_text(
        'c = get_config()\nc.LateSubmissionPlugin.penalty_method = "zero"\n'
    )
    assert main([*args, "--due", "2026-11-01T09:00Z"]) == 2
    err = capsys.readouterr().err
    assert "due date of 01_devices: 2026-11-01 09:00:00 UTC" in err
    assert "1 of 1 submissions of 01_devices would lose more than half" in err
    (tmp_path / "map.csv").write_text(f"ann_{LESSON}.ipynb,ann,01.12.2026 09:00\n")
    assert main([*args, "--due", "2026-11-01T09:00Z"]) == 2
    assert "--map, submitted_at of ann_01_devices.ipynb" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("2026-10-25 02:30 Europe/Paris", "skipped or repeated"),  # twice that night
        ("2026-03-29 02:30 Europe/Paris", "skipped or repeated"),  # never that night
        ("2026-12-01 17:00Z America/New_York", "two time zones"),
        ("2027-02-29T12:00Z", "day is out of range"),
        ("2026-12-01 17:00 localtime", "unknown time zone"),  # this machine's
    ],
)
def test_dates_that_name_no_one_moment_are_refused(text, why):
    with pytest.raises(ValueError, match=why):
        parse_time(text)


def test_course_formats_come_first_and_percent_z_names_no_zone():
    from traitlets.config import Config

    config = Config()
    config.DueDates.formats = ["%Y-%m-%d %H:%M"]
    config.DueDates.time_zone = "Europe/Paris"
    assert parse_time("2026-12-01 17:00", config) == datetime(2026, 12, 1, 16, 0)
    config.DueDates.formats = ["%d.%m.%Y %H:%M %Z"]
    with pytest.raises(ValueError, match="uses %Z"):
        parse_time("01.12.2026 17:00 UTC", config)


def test_the_guard_looks_at_each_lesson_on_its_own():
    from autograder.classgrade import due

    found = due.Lateness(
        due={
            LESSON: (datetime(2026, 12, 1), "x"),
            "02_migration": (datetime(2026, 11, 1), "y"),
        },
        late=[due.Late(f"s{i}", "02_migration", 9e6, 12, 12) for i in range(10)],
        on_time=10,
        counted={LESSON: 10, "02_migration": 10},
    )
    with pytest.raises(ValueError, match="10 of 10 submissions of 02_migration"):
        due.check(found, yes=False)


def test_map_times_from_excel_and_from_grades_csv_are_read(tmp_path):
    from autograder.cli.grade import _strict_times

    path = tmp_path / "map.csv"
    # Excel's "CSV UTF-8" starts with a BOM; grades.csv writes UTC times with Z
    path.write_bytes(
        "file,student,submitted_at\nann.ipynb,ann,2026-12-01T16:05:03Z\n".encode(
            "utf-8-sig"
        )
    )
    names, times = _read_map(str(path))
    assert names == {"ann.ipynb": "ann"}
    assert _strict_times(times, None) == {"ann.ipynb": "2026-12-01T16:05:03"}


def test_the_command_runs_with_a_stdout_that_cannot_be_reconfigured(capsys):
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["grade", "/nonexistent/folder", "--quiet"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_stamp_in_the_clock_change_hour_is_read_as_nbgrader_reads_it():
    from nbgrader.utils import parse_utc

    for text in ("2026-10-25 02:30:00.000000 CET", "2026-10-25 02:30:00 Europe/Paris"):
        assert parse_stamp(text) == parse_utc(text).replace(tzinfo=None)


def test_a_gradebook_due_date_is_flagged_as_read_in_utc_before_grading(tmp_path):
    """`nbgrader db assignment add --duedate="2026-12-07 02:00"` (no zone) is
    stored as UTC: the line before grading says how it was read and how to
    set it in another zone."""
    from nbgrader.api import Gradebook

    from autograder.classgrade import due
    from autograder.classgrade.gradebook import create_gradebook

    book = tmp_path / "gradebook.db"
    create_gradebook(f"sqlite:///{book}")
    with Gradebook(f"sqlite:///{book}") as gb:
        gb.add_assignment(LESSON, duedate=datetime(2026, 12, 7, 2, 0))
    config = instructor_config(None).copy()
    found = due.preview(_subs("2026-12-07T01:00:00"), None, LESSON, book, config)
    (line,) = [x for x in found.lines() if x.startswith("due date of")]
    assert line.startswith(f"due date of {LESSON}: 2026-12-07 02:00:00 UTC")
    assert "a date given without a zone as UTC" in line
    assert "--due 'DATE ZONE'" in line
