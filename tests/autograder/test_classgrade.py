"""course grade: a class graded in parallel, resumably, with reports and feedback."""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from autograder.classgrade import grade_class
from autograder.cli import main
from autograder.grading.kernel import warmkernel
from autograder.lessons import REPO_ROOT
from autograder.samples import HERE as SAMPLES
from autograder.samples.casefile import parse
from tests.lesson_helpers import submission

LESSON = "01_devices"
FORGETS_MPS = parse(SAMPLES / LESSON / "forgets_mps.py")
BLANK = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
ENDLESS = """
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    while True:
        pass
"""


def _cell_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


#: What each student of the classroom below must score, and why.
EXPECTED_SCORES = {
    "alice": 12.0,  # the reference answers: full marks
    "bob": 0.0,  # the blank notebook
    "carl": FORGETS_MPS.score,  # no MPS fallback: both tests of 1.1 fail
    "gus": 9.0,  # an endless loop in 1.4: that task's two tests (1 + 2 points)
    "hana": 12.0,  # tampered tests are restored and run: unchanged
}


@dataclass(frozen=True)
class Classroom:
    """A class folder as a platform exports it, and its first grading run."""

    folder: Path
    out: Path
    report: Any


@pytest.fixture(scope="module")
def classroom(tmp_path_factory) -> Classroom:
    """A class folder as a platform exports it, plus a first grading run."""
    folder = tmp_path_factory.mktemp("class")
    submission(LESSON, folder / f"alice_{LESSON}.ipynb")
    shutil.copyfile(BLANK, folder / f"bob_{LESSON}.ipynb")
    submission(
        LESSON,
        folder / f"carl_{LESSON}.ipynb",
        {"01-pick-device": FORGETS_MPS.answers["01-pick-device"]},
    )
    (folder / f"dina_{LESSON}.ipynb").write_text("{not json")
    (folder / f"emil_{LESSON}.ipynb").write_text("")
    submission("02_migration", folder / f"fay_{LESSON}.ipynb")
    submission(LESSON, folder / f"gus_{LESSON}.ipynb", {"01-largest-matrix": ENDLESS})
    tampered = json.loads((folder / f"alice_{LESSON}.ipynb").read_text())
    tampered["cells"] = [
        c for c in tampered["cells"] if _cell_id(c) != "01-pick-device-hidden-test"
    ]
    for cell in tampered["cells"]:
        if _cell_id(cell) == "01-usable-memory-test":
            cell["source"] = "assert True"
    tampered["metadata"]["kernelspec"]["name"] = "evil"
    (folder / f"hana_{LESSON}.ipynb").write_text(json.dumps(tampered))
    out = tmp_path_factory.mktemp("grading")
    report = grade_class(
        folder, LESSON, out_dir=out, jobs=2, timeout=10, progress=False
    )
    return Classroom(folder, out, report)


@pytest.mark.slow
@pytest.mark.xdist_group("classroom")
def test_scores_statuses_and_flags(classroom):
    report = classroom.report
    by = {r.student: r for r in report.results}
    assert {s: r.status for s, r in by.items()} == {
        "alice": "graded",
        "bob": "graded",
        "carl": "graded",
        "dina": "unreadable",
        "emil": "unreadable",
        "fay": "wrong-lesson",
        "gus": "graded",
        "hana": "graded",
    }
    assert {s: by[s].score for s in EXPECTED_SCORES} == EXPECTED_SCORES
    assert by["alice"].score == by["alice"].max_score
    assert by["carl"].per_question["01-pick-device-hidden-test"] == [0.0, 2.0]
    # The endless loop costs only its own question; the batch went on.
    assert by["gus"].per_question["01-largest-matrix-test"] == [0.0, 1.0]
    assert by["gus"].per_question["01-largest-matrix-hidden-test"] == [0.0, 2.0]
    # Deleted and edited tests are restored and run: the grade is unchanged.
    flags = "; ".join(by["hana"].flags)
    assert "01-pick-device-hidden-test missing" in flags
    assert "01-usable-memory-test edited" in flags
    assert "kernelspec changed" in flags
    assert by["alice"].flags == []
    assert "Day 02" in by["fay"].message
    if warmkernel.supported():  # every kernel forked from the batch's one server
        assert {r.kernel for r in by.values() if r.status == "graded"} == {"shared"}
        assert "5 forked from the batch's warm server" in report.summary()


@pytest.mark.slow
@pytest.mark.xdist_group("classroom")
def test_reports_and_feedback(classroom):
    out = classroom.out
    # the class at a glance, beside the CSV files
    assert (out / "pass_rates.png").is_file() and (out / "totals.png").is_file()
    assert f"class figures: {out / 'pass_rates.png'}" in classroom.report.summary()
    rows = list(csv.DictReader(open(out / "grades.csv", encoding="utf-8")))
    assert [r["student"] for r in rows] == [
        "alice",
        "bob",
        "carl",
        "dina",
        "emil",
        "fay",
        "gus",
        "hana",
    ]
    carl = next(r for r in rows if r["student"] == "carl")
    assert float(carl["total"]) == FORGETS_MPS.score and carl["max"] == "12.0"
    rates = list(csv.DictReader(open(out / "pass_rates.csv", encoding="utf-8")))
    worst = rates[0]
    assert float(worst["pass_rate"]) <= float(rates[-1]["pass_rate"])
    assert {r["test"] for r in rates} >= {"01-pick-device-hidden-test"}
    for html in (out / "feedback" / LESSON).glob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "_ref_" not in text and "HIDDEN TESTS" not in text, html.name
    assert (out / "feedback" / LESSON / "alice.html").is_file()


@pytest.mark.slow
@pytest.mark.xdist_group("classroom")
def test_rerun_grades_only_what_changed(classroom, tmp_path):
    folder, out = classroom.folder, classroom.out
    again = grade_class(folder, LESSON, out_dir=out, jobs=2, timeout=10, progress=False)
    # Graded ones are reused; the three problem files are tried again.
    assert again.reused == 5 and again.graded_now == 3
    shutil.copyfile(BLANK, folder / f"alice_{LESSON}.ipynb")
    changed = grade_class(
        folder, LESSON, out_dir=out, jobs=2, timeout=10, progress=False
    )
    assert changed.reused == 4
    assert {r.student: r.score for r in changed.results}["alice"] == 0


@pytest.mark.slow
def test_interrupted_run_loses_no_finished_grade(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for student in ("ina", "jon"):
        shutil.copyfile(BLANK, folder / f"{student}_{LESSON}.ipynb")
    out = tmp_path / "out"

    def interrupt(result):
        raise KeyboardInterrupt  # Ctrl-C right after the first result arrives

    with pytest.raises(KeyboardInterrupt) as stop:
        grade_class(
            folder, LESSON, out_dir=out, jobs=1, progress=False, on_result=interrupt
        )
    assert str(stop.value) == "stopped; 1 graded, 1 will be graded on the next run"
    saved = sorted(p.stem for p in (out / "results" / LESSON).glob("*.json"))
    assert "ina" in saved or "jon" in saved
    again = grade_class(folder, LESSON, out_dir=out, jobs=1, progress=False)
    assert again.reused == len(saved) and again.graded_now == 2 - len(saved)
    assert {r.student: r.score for r in again.results} == {"ina": 0.0, "jon": 0.0}


@pytest.mark.slow
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path):
    """As a terminal sends it: SIGINT to the whole process group."""
    import signal
    import subprocess
    import sys

    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(BLANK, folder / f"kim_{LESSON}.ipynb")
    # The others loop until the cell timeout: grading is still under way when
    # the signal comes, however late a loaded machine wakes this test up.
    for student in ("lee", "max"):
        submission(
            LESSON, folder / f"{student}_{LESSON}.ipynb", {"01-largest-matrix": ENDLESS}
        )
    command = [sys.executable, "-m", "autograder", "grade", str(folder)]
    command += ["--lesson", LESSON, "--out", str(tmp_path / "out"), "--jobs", "1"]
    command += ["--timeout", "8"]  # each looping test cell: 8 s
    with open(tmp_path / "log", "w+b") as log:
        proc = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + 240
            while b"1/3 graded" not in (tmp_path / "log").read_bytes():
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
            os.killpg(proc.pid, signal.SIGINT)
            assert proc.wait(120) == 130
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    text = (tmp_path / "log").read_text(errors="replace")
    # progress came line by line into the file, before the stop
    assert "preparing 01_devices" in text and "1/3 graded" in text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    last = text.strip().splitlines()[-1]
    assert last.startswith("course grade: stopped; ") and last.endswith(
        " will be graded on the next run"
    ), text


def test_a_second_run_on_the_same_output_refuses_with_the_first(tmp_path):
    from autograder.classgrade.runlock import RunLocked, one_run

    lock = tmp_path / "out" / ".course-grade.lock"
    with one_run({lock: "the output folder"}):
        with pytest.raises(RunLocked, match=f"pid {os.getpid()}, started "):
            grade_class(tmp_path, LESSON, out_dir=tmp_path / "out", progress=False)
    assert lock.read_text() == ""  # a clean end leaves no record
    # a killed run's record, without its lock: noticed, and no obstacle
    lock.write_text(json.dumps({"pid": 999999, "started": 0, "command": "course"}))
    notes = []
    with one_run({lock: "the output folder"}, notes):
        pass
    assert notes and "ended without finishing (pid 999999" in notes[0]


def test_grade_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("does not exist") and len(err.splitlines()) == 1
    assert main(["grade", str(tmp_path), "--assignment", "99_x"]) == 2


def test_grade_help_documents_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    text = capsys.readouterr().out
    for option in (
        "--assignment",
        "--out",
        "--jobs",
        "--force",
        "--timeout",
        "--memory",
        "--map",
        "--quiet",
        "--cold-kernels",
        "--no-sandbox",
        "--nbgrader-feedback",
    ):
        assert option in text


@pytest.mark.slow
def test_check_grades_without_touching_the_notebook(tmp_path, capsys):
    mine = tmp_path / f"mine_{LESSON}.ipynb"
    shutil.copyfile(BLANK, mine)
    before = mine.read_bytes()
    assert main(["check", str(mine), "--out", str(tmp_path / "fb")]) == 0
    out = capsys.readouterr().out
    assert "0 / 12" in out and "NotImplementedError" in out
    assert "feedback page:" in out
    assert "due:" not in out  # a self-study copy: no due date, and no note of one
    assert mine.read_bytes() == before
    page = Path(out.split("feedback page: ")[1].strip())
    assert page.is_file() and "_ref_" not in page.read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_batch_of_two_lessons_fills_one_course_gradebook(tmp_path):
    """Each lesson has a template course of its own; the course's gradebook
    gets both lessons' cells and both submissions."""
    from nbgrader.api import Gradebook

    folder = tmp_path / "class"
    folder.mkdir()
    for lesson in (LESSON, "02_migration"):
        blank = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
        shutil.copyfile(blank, folder / f"ivy_{lesson}.ipynb")
    db = tmp_path / "course" / "gradebook.db"
    report = grade_class(folder, out_dir=tmp_path / "out", progress=False, gradebook=db)
    assert {(r.lesson, r.status) for r in report.results} == {
        (LESSON, "graded"),
        ("02_migration", "graded"),
    }
    with Gradebook(f"sqlite:///{db}") as gradebook:
        assert sorted(a.name for a in gradebook.assignments) == [
            LESSON,
            "02_migration",
        ]
        for lesson in (LESSON, "02_migration"):
            submission = gradebook.find_submission(lesson, "ivy")
            assert submission.score == 0
            # As nbgrader's own autograde: a cell with an auto score needs no
            # manual grade, so formgrader's triage lists none of them.
            assert submission.needs_manual_grade is False
            grades = [g for nb in submission.notebooks for g in nb.grades]
            assert grades and not any(g.needs_manual_grade for g in grades)


def test_an_output_folder_keeps_its_results_and_force_removes_them_only_at_the_end(
    tmp_path,
):
    from autograder.classgrade import Request, Result, store
    from autograder.classgrade.intake import Submission
    from autograder.classgrade.request import _earlier_rows

    out = tmp_path / "out"
    for student, lesson in (("bob", LESSON), ("cy", "02_migration")):
        store.save(out, Result(student, lesson, "graded", score=1.0))
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(BLANK, folder / f"ann_{LESSON}.ipynb")
    # another source for the same lesson: refused, naming what would be lost
    with pytest.raises(
        ValueError, match=r"1 earlier result\(s\).*bob/01_devices"
    ) as no:
        grade_class(folder, LESSON, out_dir=out, progress=False)
    # no message suggests the flag that deletes reports
    assert "--force" not in str(no.value) and "another --out" in str(no.value)
    # with --force, a run that stops before grading (a bad date) removes nothing
    with pytest.raises(ValueError, match="not a date and time"):
        grade_class(
            folder,
            LESSON,
            out_dir=out,
            progress=False,
            force=True,
            gradebook=tmp_path / "gradebook.db",
            due="01.12.2026 09:57",
        )
    assert store.stored(out, "bob", LESSON) is not None
    ann = [Submission("ann", LESSON, folder / f"ann_{LESSON}.ipynb", "d")]
    kept, dropped = _earlier_rows(Request(folder, force=True), out, ann, LESSON)
    assert [(r.student, r.lesson) for r in kept] == [("cy", "02_migration")]
    assert dropped == [("bob", LESSON)]
    # a precise regrade from a partial source keeps everyone else's rows
    kept, dropped = _earlier_rows(Request(folder, student="ann"), out, ann, LESSON)
    assert sorted(r.student for r in kept) == ["bob", "cy"] and dropped == []


def test_a_pool_can_be_made_off_the_main_thread():
    """A web app or a Jupyter extension grades from a thread of its own."""
    import threading

    from autograder.classgrade.batch import worker_pool

    made = []
    thread = threading.Thread(target=lambda: made.append(worker_pool(1)))
    thread.start()
    thread.join(60)
    assert made, "worker_pool raised off the main thread"
    made[0].shutdown()
