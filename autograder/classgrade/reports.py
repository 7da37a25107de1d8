"""Reports: one result per submission, the class's CSV files and the run summary."""

from __future__ import annotations

import csv
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


def final_score(raw: float, penalty: float | None) -> float:
    """The score a student gets: ``raw`` (manual scores in) less the late
    penalty, never below zero, the formula ``nbgrader export`` uses. Every
    output (``grades.csv``, the feedback page, the Canvas and Moodle files)
    takes its final score from here."""
    return max(0.0, float(raw) - float(penalty or 0.0))


@dataclass
class Marks:
    """What the store of scores holds for one submission (the course
    gradebook, or without one the results): what its feedback page shows and
    every output reads."""

    auto: dict[str, float | None]  # each cell's auto score (None: for a person)
    score: dict[str, float]  # each cell's score: a manual one over the auto one
    points: dict[str, float]  # each cell's maximum
    comments: dict[str, str] = field(default_factory=dict)  # an instructor's
    raw: float = 0.0  # the sum of the cells' scores (nbgrader's score)
    penalty: float = 0.0
    seconds_late: float = 0.0
    by_hand: bool = False  # an instructor gave a score or wrote a comment
    #: the student's own due date (ISO, UTC) where they have an extension
    extended_until: str = ""
    #: hand grades given before the latest autograde (a new answer, new
    #: points), not looked at since: cell -> [the hand score, the auto score]
    stale: dict[str, list[float]] = field(default_factory=dict)
    hand: float | None = None  # the sum of the hand-given scores (None: none)

    @property
    def max(self) -> float:
        return float(sum(self.points.values()))

    @property
    def final(self) -> float:
        return final_score(self.raw, self.penalty)

    def basis(self, digest: str = "") -> list:
        """What a feedback page drawn from these marks and the notebook file
        of ``digest`` shows, as data: a page is drawn again when this
        changes."""
        import hashlib
        import json

        shown = [self.score, self.points, self.comments, self.penalty, digest]
        shown += [self.extended_until] if self.extended_until else []
        shown += [self.stale] if self.stale else []
        text = json.dumps(shown, sort_keys=True).encode()
        return [hashlib.sha256(text).hexdigest()[:16]]

    @classmethod
    def of(cls, result: Result) -> Marks:
        """A result's own marks (no gradebook: the results are the store)."""
        auto = {
            cell: (None if cell in result.manual else float(score))
            for cell, (score, _) in result.per_question.items()
        }
        return cls(
            auto=auto,
            score={cell: value or 0.0 for cell, value in auto.items()},
            points={c: float(top) for c, (_, top) in result.per_question.items()},
            raw=float(result.score),
            penalty=float(result.late_penalty),
            seconds_late=float(result.seconds_late),
        )


@dataclass
class Result:
    """The outcome for one submission, as stored in its JSON file."""

    student: str
    lesson: str
    status: str  # graded | unreadable | wrong-lesson | error
    score: float = 0.0
    max_score: float = 0.0
    per_question: dict[str, list[float]] = field(default_factory=dict)
    digest: str = ""
    flags: list[str] = field(default_factory=list)  # tampering with the notebook
    message: str = ""
    seconds: float = 0.0
    feedback: str = ""
    hints: dict[str, str] = field(default_factory=dict)
    review: list[str] = field(default_factory=list)  # code worth a look (scan)
    manual: list[str] = field(default_factory=list)  # grade cells for a person
    #: Where its scores are stored: "results" (this result, its JSON) or
    #: "gradebook" (the course gradebook; its JSON then holds none).
    scores: str = "results"
    verdict_seconds: float = 0.0  # what the verdict step took
    #: How its kernel started: "shared" (forked by the batch's warm server),
    #: "warm" (by its worker's own), "cold", or "" (none started).
    kernel: str = ""
    submitted_at: str = ""  # ISO, UTC; "" when the submission carries no time
    #: the release whose rules graded it (:mod:`autograder.lessons.releases`)
    release: str = ""
    seconds_late: float = 0.0  # past the gradebook's due date
    late_penalty: float = 0.0  # points off, from nbgrader's late-submission plugin
    extended_until: str = ""  # ISO, UTC: the student's extension (`course extend`)
    #: The course gradebook's score: the autograde scores with formgrader's
    #: manual scores in their place where an instructor gave one (None: no
    #: gradebook was written).
    gradebook_score: float | None = None
    #: the store's stale hand grades (:attr:`Marks.stale`): cell -> [hand, auto]
    hand_stale: dict[str, list[float]] = field(default_factory=dict)
    #: the sum of the scores an instructor gave by hand (None: none given)
    hand: float | None = None

    @property
    def raw(self) -> float:
        """The score before the late penalty: the gradebook's, else autograde's."""
        return self.score if self.gradebook_score is None else self.gradebook_score

    @property
    def final(self) -> float:
        """The score after the late penalty (never below zero), as nbgrader's
        own export computes it."""
        return final_score(self.raw, self.late_penalty)

    def take(self, marks: Marks) -> None:
        """Read the store's marks into this result (its scores come from
        there, never from the results JSON when a gradebook is the store)."""
        self.per_question = {
            cell: [marks.auto.get(cell) or 0.0, top]
            for cell, top in marks.points.items()
        }
        self.score = float(sum(value for value, _ in self.per_question.values()))
        self.max_score = marks.max
        self.gradebook_score = marks.raw
        self.late_penalty, self.seconds_late = marks.penalty, marks.seconds_late
        self.extended_until = marks.extended_until
        self.hand_stale = {cell: list(pair) for cell, pair in marks.stale.items()}
        self.hand = marks.hand

    def stale_lines(self) -> list[str]:
        """A line per stale hand grade, with both scores."""
        return [
            f"hand grade {hand:g}/{self.per_question[cell][1]:g} on {cell} stands "
            f"over its new auto score {auto:g}: look again in formgrader"
            for cell, (hand, auto) in sorted(self.hand_stale.items())
        ]


@dataclass
class ClassReport:
    """What one ``course grade`` run produced."""

    results: list[Result]
    problems: list[str]
    graded_now: int
    reused: int
    out_dir: Path
    seconds: float
    kernels: str = ""  # how the kernels were isolated (sandbox.status())
    left_out: tuple[int, int] = (0, 0)  # at intake: files skipped, unattributed
    releases: list[str] = field(default_factory=list)  # rules other than current
    fresh: frozenset = frozenset()  # (student, lesson) of those graded now

    def summary(self) -> str:
        """A few lines for the terminal."""
        bad = [r for r in self.results if r.status != "graded"]
        skipped, unattributed = self.left_out
        lines = [
            f"{len(self.results)} submission(s): {self.graded_now} graded now, "
            f"{self.reused} unchanged since the last run, {len(bad)} with problems; "
            f"{skipped} file(s) skipped and {unattributed} unattributed at intake; "
            f"in {self.seconds:.1f} s",
            f"grades: {self.out_dir / 'grades.csv'}",
            f"pass rates: {self.out_dir / 'pass_rates.csv'}",
        ]
        figures = [self.out_dir / n for n in ("pass_rates.png", "totals.png")]
        if all(f.is_file() for f in figures):
            lines.append(f"class figures: {figures[0]}, {figures[1].name}")
        if self.kernels:
            now = [r for r in self.results if (r.student, r.lesson) in self.fresh]
            lines.append(f"kernels: {self.kernels}{_started(now)}")
        lines += [f"rules: {line}" for line in self.releases]
        lines += [f"problem: {p}" for p in self.problems]
        lines += [
            f"{r.student}/{r.lesson}: late by {_hours(r.seconds_late)}, "
            f"{r.late_penalty:g} point(s) off ({r.raw:g} -> {r.final:g})"
            + (f" (extended to {_utc(r.extended_until)})" if r.extended_until else "")
            for r in self.results
            if r.seconds_late > 0
        ]
        untimed = [
            f"{r.student}/{r.lesson}" for r in self.results if not r.submitted_at
        ]
        if untimed and any(r.seconds_late > 0 or r.submitted_at for r in self.results):
            lines.append("no submission time, counted on time: " + ", ".join(untimed))
        lines += [f"{r.student}/{r.lesson}: {r.status}: {r.message}" for r in bad]
        lines += [
            f"{r.student}/{r.lesson} tampering: {'; '.join(r.flags)}"
            for r in self.results
            if r.flags
        ]
        lines += [
            f"{r.student}/{r.lesson} review ({r.score:g} points): {'; '.join(r.review)}"
            for r in self.results
            if r.review
        ]
        lines += [
            f"{r.student}/{r.lesson}: {line} (Manual Grading), until then the "
            f"final score is {r.final:g}"
            for r in self.results
            for line in r.stale_lines()
        ]
        return "\n".join(lines)


def _utc(when: str) -> str:
    """A stored time (ISO, UTC, no zone) as it reads unambiguously: with ``Z``."""
    return f"{when}Z" if when and not when.endswith("Z") else when


def _started(results: list[Result]) -> str:
    """How this run's kernels started, if any did: "; 48 forked from the
    batch's warm server, 2 cold"."""
    words = {
        "shared": "forked from the batch's warm server",
        "warm": "forked from a worker's own warm server",
        "cold": "started cold",
    }
    counts = Counter(r.kernel for r in results if r.kernel in words)
    return "".join(
        f"{', ' if i else '; '}{counts[kind]} {words[kind]}"
        for i, kind in enumerate(k for k in words if counts[k])
    )


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def write_reports(results: Iterable[Result], out_dir: Path) -> None:
    """Write grades.csv (one row per submission) and pass_rates.csv (per test)."""
    results = list(results)
    questions = sorted({q for r in results for q in r.per_question})
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["student", "lesson", *questions, "total", "max", "status", "flags"]
            + ["review", "submitted_at", "extended_until", "hours_late", "raw"]
            + ["manual", "late_penalty", "final"]
        )
        for r in results:
            cells = [r.per_question.get(q, ["", ""])[0] for q in questions]
            writer.writerow(
                [r.student, r.lesson, *cells, r.score, r.max_score, r.status]
                + ["; ".join(r.flags), "; ".join(r.review + r.stale_lines())]
                + [_utc(r.submitted_at), _utc(r.extended_until)]
                + [round(r.seconds_late / 3600, 4), r.raw]
                + ["" if r.hand is None else round(r.hand, 6), r.late_penalty, r.final]
            )
    with open(out_dir / "pass_rates.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["lesson", "test", "passed", "graded", "pass_rate"])
        rows = []
        for q in questions:
            graded = [r for r in results if q in r.per_question]
            passed = sum(
                1 for r in graded if r.per_question[q][0] >= r.per_question[q][1]
            )
            rate = round(passed / len(graded), 3)
            rows.append((graded[0].lesson, q, passed, len(graded), rate))
        for row in sorted(rows, key=lambda row: (row[4], row[1])):
            writer.writerow(row)


def feedback_to_course(submissions: list, results: dict) -> list[str]:
    """Put feedback where ``nbgrader release_feedback`` looks for it.

    For submissions in a course's ``submitted/<student>/<assignment>/`` folder
    (what ``nbgrader collect`` makes), writes
    ``feedback/<student>/<assignment>/<notebook>.html`` next to ``submitted/``,
    with the submission's ``timestamp.txt`` and ``submission_secret.txt``.
    Returns a problem line for each submission it cannot place.
    """
    problems = []
    for sub in submissions:
        result = results.get((sub.student, sub.lesson))
        if result is None or not result.feedback:
            continue
        folder = sub.path.parent
        if folder.parent.parent.name != "submitted":
            problems.append(
                f"{sub.student}/{sub.lesson}: not in an nbgrader submitted/ "
                "folder, feedback left in the output folder only"
            )
            continue
        target = folder.parents[2] / "feedback" / folder.parent.name / folder.name
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(result.feedback, target / f"{sub.path.stem}.html")
        for name in ("timestamp.txt", "submission_secret.txt"):
            if (folder / name).is_file():
                shutil.copyfile(folder / name, target / name)
    return problems
