"""Late submissions: submission times at intake, the per-hour plugin, --map."""

from __future__ import annotations

import importlib.util
import shutil
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from autograder.classgrade import collect_submissions
from autograder.classgrade.late import (
    PerHourPenalty,
    parse_stamp,
    parse_time,
    read_timestamp,
)
from autograder.classgrade.worker import KERNEL_START_FAILED, grade_job
from autograder.cli import _read_map, main
from autograder.config.settings import instructor_config
from autograder.lessons import REPO_ROOT
from tests.lesson_helpers import bare_job

LESSON = "01_devices"
BLANK = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"

PLUGIN = "autograder.classgrade.late.PerHourPenalty"


@pytest.mark.parametrize(
    ("seconds", "penalty"),
    [(0, None), (60, None), (301, 0.5), (3600 + 300, 0.5), (3600 + 301, 1.0)],
)
def test_per_hour_penalty_counts_started_hours_after_grace(seconds, penalty):
    plugin = PerHourPenalty(points_per_hour=0.5, grace_minutes=5)
    assert plugin.late_submission_penalty("s", 10.0, seconds) == penalty


def test_penalty_never_exceeds_the_score():
    plugin = PerHourPenalty(points_per_hour=4.0)
    assert plugin.late_submission_penalty("s", 3.0, 10 * 3600) == 3.0


def test_times_are_read_as_nbgrader_reads_them(tmp_path):
    assert parse_time("2026-11-30 14:03:00.5 UTC") == datetime(
        2026, 11, 30, 14, 3, 0, 500000
    )
    assert parse_time("2026-11-30T15:03:00+01:00") == datetime(2026, 11, 30, 14, 3)
    assert parse_time("2026-11-30 14:03Z") == datetime(2026, 11, 30, 14, 3)
    # what the tools wrote themselves (zip dates, stored results) is UTC
    assert parse_stamp("2026-11-30T14:03:00") == datetime(2026, 11, 30, 14, 3)
    with pytest.raises(ValueError, match="not a date and time"):
        parse_time("yesterday-ish")
    assert read_timestamp(tmp_path) == ("", "")
    (tmp_path / "timestamp.txt").write_text("garbage")
    when, problem = read_timestamp(tmp_path)
    assert when == "" and "counted on time" in problem


def test_the_course_config_names_the_penalty_method(tmp_path):
    assert instructor_config(None).LateSubmissionPlugin.penalty_method == "none"
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.AssignLatePenalties.plugin_class = "autograder.classgrade.late.'
        'PerHourPenalty"\n'
    )
    config = instructor_config(tmp_path)
    assert config.AssignLatePenalties.plugin_class.endswith("late.PerHourPenalty")


def test_a_config_naming_a_moved_module_is_told_its_new_name(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.AssignLatePenalties.plugin_class = "autograder.late.PerHourPenalty"\n'
    )
    with pytest.raises(ValueError) as caught:
        instructor_config(tmp_path)
    message = str(caught.value)
    assert "c.AssignLatePenalties.plugin_class" in message
    assert "'autograder.classgrade.late.PerHourPenalty'" in message
    assert str(tmp_path) in message
    assert importlib.util.find_spec("autograder.late") is None  # no shim left


def test_intake_reads_timestamp_zip_date_and_map(tmp_path):
    # nbgrader layout: timestamp.txt; one without a time counts as on time
    for student, stamp in (("ann", "2026-11-30 10:00:00 UTC"), ("ben", None)):
        folder = tmp_path / "submitted" / student / LESSON
        folder.mkdir(parents=True)
        shutil.copyfile(BLANK, folder / f"{LESSON}.ipynb")
        if stamp:
            (folder / "timestamp.txt").write_text(stamp)
    found, _ = collect_submissions(tmp_path / "submitted", None, tmp_path / "w")
    assert {s.student: s.submitted_at for s in found} == {
        "ann": "2026-11-30T10:00:00",
        "ben": "",
    }
    # a zip of loose files: the entry's date, unless --map gives a time
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("cat", "dan"):
            info = zipfile.ZipInfo(f"{name}_{LESSON}.ipynb", (2026, 11, 29, 8, 30, 0))
            zf.writestr(info, BLANK.read_bytes())
    times = {f"dan_{LESSON}.ipynb": "2026-11-30T09:15:00+01:00"}
    found, _ = collect_submissions(archive, None, tmp_path / "w2", times=times)
    assert {s.student: s.submitted_at for s in found} == {
        "cat": "2026-11-29T08:30:00",
        "dan": "2026-11-30T08:15:00",
    }


def test_map_csv_with_header_and_times(tmp_path):
    path = tmp_path / "map.csv"
    path.write_text(
        "file,student,submitted_at\n"
        "a.ipynb,ann,2026-11-30T10:00Z\n"
        "b.ipynb,ben,\n"
        "c.ipynb,cy\n"
    )
    names, times = _read_map(str(path))
    assert names == {"a.ipynb": "ann", "b.ipynb": "ben", "c.ipynb": "cy"}
    assert times == {"a.ipynb": "2026-11-30T10:00Z"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--gradebook", "g.db", "--due", "2026-12-01"], "--due needs --lesson"),
        (["--student", "zed", "--force"], "--force regrades everyone"),
        (["--student", "zed"], "no submission from student 'zed' here (found: ann)"),
        (["--question", "01-nope"], "the grade ids are: 01-largest-matrix-hidden-test"),
    ],
)
def test_grade_option_errors_are_one_line(tmp_path, capsys, extra, message):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(BLANK, folder / f"ann_{LESSON}.ipynb")
    code = main(["grade", str(folder), "--out", str(tmp_path / "o"), *extra])
    err = capsys.readouterr().err
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "first", [KERNEL_START_FAILED, "ValueError: Invalid Signature: b'e9f7'"]
)
def test_a_kernel_that_fails_for_no_fault_of_the_submission_is_retried_cold(
    tmp_path, monkeypatch, first
):
    from autograder.classgrade import worker

    calls = []

    def autograde(job, submitted):
        calls.append(job.warm)
        if len(calls) == 1:
            return None, f"[ERROR] ... {first}"
        return None, "[ERROR] something else"

    monkeypatch.setattr(worker, "_autograde", autograde)
    job = bare_job(tmp_path, BLANK, LESSON, student="ann", digest="x", warm=True)
    result = grade_job(job).result
    assert calls == [True, False]
    assert result.status == "error" and "something else" in result.message


def test_zones_are_read_or_refused_never_guessed():
    assert parse_time("2026-12-01 17:00 +0100") == datetime(2026, 12, 1, 16, 0)
    assert parse_time("2026-12-01 17:00 Europe/Paris") == datetime(2026, 12, 1, 16, 0)
    for bad in ("2026-12-01 17:00 CEST", "2026-12-01 17:00 Europe/Pari"):
        with pytest.raises(ValueError, match="unknown time zone"):
            parse_time(bad)


def test_a_zip_entry_with_a_utc_timestamp_uses_it(tmp_path):
    import struct

    archive = tmp_path / "export.zip"
    utc = datetime(2026, 11, 30, 9, 15, 0)
    seconds = int((utc - datetime(1970, 1, 1)).total_seconds())
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo(f"eve_{LESSON}.ipynb", (2026, 11, 30, 10, 15, 0))
        info.extra = struct.pack("<HHBl", 0x5455, 5, 1, seconds)
        zf.writestr(info, BLANK.read_bytes())
    found, problems = collect_submissions(archive, None, tmp_path / "w")
    assert found[0].submitted_at == "2026-11-30T09:15:00"  # not the local 10:15
    assert any("zip's file dates" in p for p in problems)


@pytest.mark.slow
def test_a_page_follows_the_gradebook_when_the_penalty_goes_away(tmp_path):
    """A rerun reuses the grade; the page is drawn again when the gradebook's
    view changed (here: a later due date removes the penalty)."""
    from autograder.classgrade import grade_class
    from tests.lesson_helpers import submission

    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f'c.AssignLatePenalties.plugin_class = "{PLUGIN}"\n'
        "c.PerHourPenalty.points_per_hour = 1\n"
    )
    folder = tmp_path / "in"
    folder.mkdir()
    submission(LESSON, folder / f"ann_{LESSON}.ipynb")
    common = {
        "out_dir": tmp_path / "out",
        "progress": False,
        "jobs": 1,
        "gradebook": course / "gradebook.db",
        "times": {f"ann_{LESSON}.ipynb": "2026-12-01T12:30:00Z"},
    }
    (late,) = grade_class(folder, LESSON, due="2026-12-01T10:00Z", **common).results
    assert late.late_penalty == 3 and late.final == late.score - 3
    line = "Late submission penalty (Score: -3.0)"
    assert line in Path(late.feedback).read_text(encoding="utf-8")
    again = grade_class(folder, LESSON, due="2026-12-01T14:00Z", **common)
    (on_time,) = again.results
    assert again.reused == 1 and on_time.late_penalty == 0
    assert "Late submission penalty" not in Path(on_time.feedback).read_text(
        encoding="utf-8"
    )


@pytest.mark.slow
def test_without_a_gradebook_the_results_keep_lateness_and_penalties(tmp_path):
    """`--no-gradebook` with `--due`: the results are the store. The penalty is
    worked out on the score, the due date is kept beside the results, and a
    rerun without --due keeps both."""
    from autograder.classgrade import grade_class
    from autograder.classgrade.store import stored
    from tests.lesson_helpers import submission

    course = tmp_path / "course"
    handed = course / "submitted" / "ann" / LESSON
    handed.mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f'c.AssignLatePenalties.plugin_class = "{PLUGIN}"\n'
        "c.PerHourPenalty.points_per_hour = 1\n"
    )
    submission(LESSON, handed / f"{LESSON}.ipynb")
    (handed / "timestamp.txt").write_text("2026-12-01 12:30:00.000000 UTC")
    out = tmp_path / "out"
    common = {"out_dir": out, "progress": False, "jobs": 1}
    (late,) = grade_class(
        course / "submitted", LESSON, due="2026-12-01T10:00Z", **common
    ).results
    assert (late.seconds_late, late.late_penalty) == (9000.0, 3.0)
    assert late.final == late.score - 3
    kept = stored(out, "ann", LESSON)
    assert (kept.seconds_late, kept.late_penalty) == (9000.0, 3.0)
    assert (out / "due_dates.json").is_file()
    (again,) = grade_class(course / "submitted", LESSON, **common).results
    assert (again.seconds_late, again.late_penalty) == (9000.0, 3.0)


def test_a_thread_pool_is_refused_before_any_job_runs(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from autograder.classgrade import Plan, Request, run

    planned = Plan(Request(tmp_path), tmp_path, [], [], [], {}, {}, [], {}, {}, "")
    with ThreadPoolExecutor(1) as pool, pytest.raises(TypeError, match="processes"):
        list(run(planned, pool))
