"""Sample submissions for every lesson, each with the score it must get.

For each lesson: the reference solution (full marks) and the blank student
notebook (zero), made from the lesson itself; and, as one small file each in
``autograder/samples/<lesson>/<student>.py`` (format:
:mod:`autograder.samples.casefile`), realistic mistakes (partial marks) and,
for Day 01, attempts to cheat the tests, tampered notebooks and broken files.
Each file names its expected score and the test cells that must score zero;
:func:`check_files` checks that the two agree with the lesson's points.

``write_samples(folder)`` writes them as a platform export would look (loose
``<student>_<lesson>.ipynb`` files, plus ``expected.csv``); ``course demo`` and
the test suite grade them with ``course grade`` and compare.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from autograder.lessons import REPO_ROOT, lesson_names
from autograder.lessons.releases import grade_points
from autograder.samples.casefile import CaseFile, load, write

HERE = Path(__file__).resolve().parent
Sample = CaseFile
"""A sample is a case file; its ``name`` is the student's id."""


points = grade_points
"""Points of every test cell of a lesson, by ``grade_id``."""


def _made(lesson: str) -> list[Sample]:
    full = sum(points(lesson).values())
    return [
        Sample(lesson, "reference", "The solution.", full, kind="reference"),
        Sample(
            lesson,
            "blank",
            "The student edition, untouched.",
            0.0,
            zero=frozenset({"*"}),
            kind="blank",
        ),
    ]


def all_samples(lessons: list[str] | None = None) -> list[Sample]:
    """Every sample of the given lessons (default: all lessons)."""
    names = lessons or lesson_names()
    files = [s for s in load(HERE) if s.lesson in names]
    return [s for lesson in names for s in _made(lesson)] + files


def expected_score(sample: Sample) -> float:
    """The score ``sample`` must get (the figure its file names)."""
    return sample.score


def implied_score(sample: Sample) -> float:
    """The score the sample's status and zeroed cells imply."""
    if sample.status != "graded" or "*" in sample.zero:
        return 0.0
    return sum(
        p for cell, p in points(sample.lesson).items() if cell not in sample.zero
    )


def check_files(samples: list[Sample]) -> list[str]:
    """Samples whose named score disagrees with their zeroed cells, or that zero
    a cell the lesson does not have."""
    problems = []
    for s in samples:
        known = set(points(s.lesson))
        unknown = sorted(s.zero - known - {"*"})
        if unknown:
            problems.append(f"{s.lesson}/{s.name}: no such test cells {unknown}")
        if s.score != implied_score(s):
            problems.append(
                f"{s.lesson}/{s.name}: score {s.score:g}, but its zeroed cells "
                f"leave {implied_score(s):g}"
            )
    return problems


def write_samples(
    folder: Path, lessons: list[str] | None = None, samples: list[Sample] | None = None
) -> list[Sample]:
    """Write every sample of ``lessons`` (or just ``samples``) as
    ``<student>_<lesson>.ipynb``, plus ``expected.csv``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    samples = all_samples(lessons) if samples is None else samples
    for sample in samples:
        target = folder / f"{sample.name}_{sample.lesson}.ipynb"
        if sample.kind == "blank":
            blank = REPO_ROOT / "notebooks" / sample.lesson / f"{sample.lesson}.ipynb"
            shutil.copyfile(blank, target)
        else:
            write(sample, target)
    with open(folder / "expected.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["student", "lesson", "kind", "expected_status", "expected_score", "why"]
        )
        for s in samples:
            writer.writerow([s.name, s.lesson, s.kind, s.status, s.score, s.why])
    return samples


def compare(samples: list[Sample], results: list) -> list[str]:
    """Differences between what the samples must score and what they scored."""
    got = {(r.student, r.lesson): r for r in results}
    problems = []
    for s in samples:
        r = got.get((s.name, s.lesson))
        if r is None:
            problems.append(f"{s.name}/{s.lesson}: not graded")
            continue
        if r.status != s.status:
            problems.append(f"{s.name}/{s.lesson}: status {r.status} != {s.status}")
            continue
        if r.score != s.score:
            problems.append(
                f"{s.name}/{s.lesson}: {r.score:g} points, expected {s.score:g}"
            )
        if s.status == "graded" and "*" not in s.zero:
            wrong = [
                q
                for q, (score, top) in r.per_question.items()
                if (score == 0) != (q in s.zero) and top > 0
            ]
            if wrong:
                problems.append(f"{s.name}/{s.lesson}: unexpected cells {wrong}")
        if s.flagged and not r.flags:
            problems.append(f"{s.name}/{s.lesson}: tampering not flagged")
    return problems
