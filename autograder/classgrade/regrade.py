"""``course grade --diff``: what grading under the current rules would change.

Each submission is graded under the lesson as the repository has it now
(``rules="current"``), in a scratch folder; the results are compared, test
cell by test cell, with what the output folder holds. Nothing there, nor in a
gradebook, is written. ``course grade --rules current`` then applies it (results
graded under other rules are graded again; the others are kept).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.classgrade import store
from autograder.classgrade.reports import Result


@dataclass(frozen=True)
class Change:
    """One submission: its stored result and its result under the current rules."""

    before: Result | None
    after: Result

    @property
    def changed(self) -> bool:
        before, after = self.before, self.after
        return (
            before is None
            or before.status != after.status
            or before.per_question != after.per_question
            or abs(before.score - after.score) > 1e-9
        )

    def line(self) -> str:
        """``alice/01_devices: 14/14 -> 12/12 (-2): 01-x-test 4/4 -> 2/2``."""
        before, after = self.before, self.after
        name = f"{after.student}/{after.lesson}"
        now = _score(after)
        if before is None:
            return f"{name}: not graded before -> {now}"
        delta = after.score - before.score
        line = f"{name}: {_score(before)} -> {now} ({delta:+g})"
        cells = [
            f"{gid} {_pair(before.per_question.get(gid))} -> "
            f"{_pair(after.per_question.get(gid))}"
            for gid in sorted(set(before.per_question) | set(after.per_question))
            if before.per_question.get(gid) != after.per_question.get(gid)
        ]
        return line + (": " + ", ".join(cells) if cells else "")


def _score(result: Result) -> str:
    if result.status != "graded":
        return result.status
    return f"{result.score:g}/{result.max_score:g}"


def _pair(found: list[float] | None) -> str:
    return "-" if not found else f"{found[0]:g}/{found[1]:g}"


def diff(
    source: Path, lesson: str | None, out_dir: Path, **options: Any
) -> list[Change]:
    """Grade ``source`` under the current rules into a scratch folder and
    compare each result with ``out_dir``'s. ``options`` go to
    :func:`~autograder.classgrade.batch.grade_class` (``jobs``, ``progress``,
    ``timeout``, ...); the gradebook and the output folder are left alone."""
    from autograder.classgrade.batch import grade_class

    book = options.pop("gradebook", None)
    for fixed in ("out_dir", "rules", "force", "due", "yes"):
        options.pop(fixed, None)
    with tempfile.TemporaryDirectory(prefix="course-diff-") as scratch:
        report = grade_class(
            source,
            lesson,
            out_dir=Path(scratch),
            rules="current",
            force=True,
            **options,
        )
    before = {
        (r.student, r.lesson): store.stored(
            out_dir, r.student, r.lesson, graded_only=False
        )
        for r in report.results
    }
    if book is not None:  # the gradebook holds their scores
        from autograder.classgrade.gradebook import read_marks

        marks = read_marks(book, [k for k, r in before.items() if r is not None])
        for key, found in marks.items():
            if before[key].scores == "gradebook":
                before[key].take(found)
    return [Change(before[(r.student, r.lesson)], r) for r in report.results]


def summary(changes: list[Change], out_dir: Path) -> str:
    """What the terminal shows: every change, then the count unchanged."""
    changed = [c for c in changes if c.changed]
    lines = [
        f"grading under the current rules would change {len(changed)} of "
        f"{len(changes)} submission(s) in {out_dir} (nothing was written):"
    ]
    lines += [f"  {c.line()}" for c in changed]
    if changed:
        lines.append(
            "to apply: the same course grade command with --rules current "
            "instead of --diff"
        )
    return "\n".join(lines)
