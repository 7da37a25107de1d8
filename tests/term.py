"""The term of ``tests/e2e/test_term.py``: its course, exchange and students,
and every store of scores read back."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.classgrade import grade_class
from autograder.config.settings import write_course_config
from autograder.lessons import find_lesson, source_to_notebook
from autograder.samples import all_samples
from tests.lesson_helpers import fill_answers

LESSON = "01_devices"
COURSE = "gpu-course"
STUDENTS = ("ann", "bob", "cat", "dee", "José", "o'brien")


def nbgrader(args: list[str], cwd: Path, env: dict) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"nbgrader {args[0]}:\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def as_student(home: Path, exchange: Path, course: str = COURSE) -> list[str]:
    """A student's nbgrader options: the course, the exchange, their cache."""
    return [
        "--course",
        course,
        f"--Exchange.root={exchange}",
        f"--Exchange.cache={home / '.cache'}",
    ]


def _csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


class Term:
    """The course, its exchange and its students, in a temporary folder."""

    def __init__(self, root: Path, released: Path) -> None:
        self.root, self.exchange = root / "instructor", root / "exchange"
        self.exchange.mkdir(parents=True)
        self.env = dict(
            os.environ,
            HOME=str(root / "home"),
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        )
        shutil.copytree(released, self.root / "notebooks" / LESSON)
        write_course_config(self.root)
        with open(self.root / "nbgrader_config.py", "a", encoding="utf-8") as f:
            f.write(
                "c.AssignLatePenalties.plugin_class = "
                '"autograder.classgrade.late.PerHourPenalty"\n'
                "c.PerHourPenalty.points_per_hour = 1.0\n"
            )
        self.teacher = [f"--Exchange.root={self.exchange}"]
        self.out, self.db = self.root / "grading", self.root / "gradebook.db"
        self.homes = root / "students"

    def nbgrader(self, *args: str) -> str:
        return nbgrader(list(args), self.root, self.env)

    def submit(self, name: str, answers: dict[str, str], fetch: bool = True) -> None:
        home = self.homes / name
        home.mkdir(parents=True, exist_ok=True)
        student = as_student(home, self.exchange)
        if fetch:
            nbgrader(["fetch_assignment", LESSON, *student], home, self.env)
        fill_answers(home / LESSON / f"{LESSON}.ipynb", answers)
        nbgrader(["submit", LESSON, *student, f"--student={name}"], home, self.env)

    def grade(self, **options) -> object:
        return grade_class(
            self.root / "submitted",
            LESSON,
            out_dir=self.out,
            gradebook=self.db,
            jobs=2,
            progress=False,
            course_feedback=True,
            **options,
        )

    def stores(self, tmp: Path) -> dict[str, dict[str, tuple[float, float]]]:
        """Each store's (final score, maximum) of every student."""
        from nbgrader.api import Gradebook

        found: dict[str, dict] = {}
        with Gradebook(f"sqlite:///{self.db}") as book:
            top = float(book.find_assignment(LESSON).max_score)
            found["gradebook"] = {}
            for name in STUDENTS:
                sub = book.find_submission(LESSON, name)
                penalty = float(sub.late_submission_penalty or 0.0)
                found["gradebook"][name] = (max(0.0, sub.score - penalty), top)
        rows = {r["student"]: r for r in csv.DictReader(open(self.out / "grades.csv"))}
        found["grades.csv"] = {
            n: (float(rows[n]["final"]), float(rows[n]["max"])) for n in STUDENTS
        }
        found["feedback"], found["course feedback"] = {}, {}
        for name in STUDENTS:
            for where, page in (
                ("feedback", self.out / "feedback" / LESSON / f"{name}.html"),
                (
                    "course feedback",
                    self.root / "feedback" / name / LESSON / f"{LESSON}.html",
                ),
            ):
                shown = re.search(
                    # "Score: " or the Chinese edition's label
                    rf"{LESSON} \((?:Score: |得分：)([\d.]+) / ([\d.]+)\)</h4>",
                    page.read_text(encoding="utf-8"),
                )
                found[where][name] = (float(shown[1]), float(shown[2]))
        self.nbgrader("export", "--to", str(tmp / "export.csv"))
        rows = {r["student_id"]: r for r in csv.DictReader(open(tmp / "export.csv"))}
        found["nbgrader export"] = {
            n: (float(rows[n]["score"]), float(rows[n]["max_score"])) for n in STUDENTS
        }
        self.nbgrader(
            "export",
            "--exporter=autograder.classgrade.lms.CanvasExport",
            "--to",
            str(tmp / "canvas.csv"),
        )
        canvas = _csv(tmp / "canvas.csv")
        column = canvas[0].index(LESSON)
        possible = float(canvas[1][column])
        ids = {f"10{i}": n for i, n in enumerate(STUDENTS)}
        found["canvas"] = {
            ids[row[1]]: (float(row[column]), possible) for row in canvas[2:]
        }
        self.nbgrader(
            "export",
            "--exporter=autograder.classgrade.lms.MoodleExport",
            "--to",
            str(tmp / "moodle.csv"),
        )
        moodle = _csv(tmp / "moodle.csv")
        emails = {f"s{i}@example.org": n for i, n in enumerate(STUDENTS)}
        found["moodle"] = {
            emails[row[0]]: (float(row[moodle[0].index(LESSON)]), possible)
            for row in moodle[1:]
        }
        return found

    def agree(self, tmp: Path, top: float) -> dict[str, tuple[float, float]]:
        """Check every store against the gradebook; return its marks."""
        found = self.stores(tmp)
        book = found["gradebook"]
        assert {v for _, v in book.values()} == {top}
        for store, marks in found.items():
            assert marks.keys() == book.keys(), store
            for name, (final, most) in marks.items():
                want = book[name]
                assert (final, most) == pytest.approx(want, abs=0.006), (store, name)
        for name in STUDENTS:  # the results JSON is no store of scores
            data = json.loads(
                (self.out / "results" / LESSON / f"{name}.json").read_text("utf-8")
            )
            assert data["status"] == "graded" and data["scores"] == "gradebook"
            assert not {"score", "per_question", "late_penalty"} & set(data)
        return book


def answers(mistake: str | None = None) -> dict[str, str]:
    solution = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in source_to_notebook(find_lesson(LESSON)).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    if mistake is None:
        return solution
    sample = next(s for s in all_samples([LESSON]) if s.name == mistake)
    return {**solution, **sample.answers}
