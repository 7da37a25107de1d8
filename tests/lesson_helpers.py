"""Build submissions for grading tests: the reference with some answers replaced."""

from __future__ import annotations

from pathlib import Path

from autograder.lessons import find_lesson, source_to_notebook, write_notebook


def submission(lesson: str, path: Path, answers: dict[str, str] | None = None) -> Path:
    """Write lesson's reference notebook to ``path``, replacing some answer cells.

    ``answers`` maps a solution cell's grade_id to the code a student wrote there.
    """
    nb = source_to_notebook(find_lesson(lesson))
    remaining = dict(answers or {})
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in remaining:
            cell.source = remaining.pop(grade_id)
    assert not remaining, f"no such answer cells: {sorted(remaining)}"
    write_notebook(nb, path)
    return path


def check_exact_scores(
    lesson: str, cases: dict[str, tuple[dict[str, str], set[str]]], tmp_path: Path
) -> None:
    """Grade the reference, the blank notebook and each case; check every cell.

    ``cases`` maps a student name to (answers, test cells that must score zero).
    The reference must get full marks, the blank notebook zero, and each case
    full points on every test cell not named.
    """
    from autograder.grading import grade_notebooks
    from autograder.lessons import REPO_ROOT

    subs = {
        "reference": submission(lesson, tmp_path / "reference.ipynb"),
        "blank": REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb",
    }
    for student, (answers, _) in cases.items():
        subs[student] = submission(lesson, tmp_path / f"{student}.ipynb", answers)
    grades = {g.student: g for g in grade_notebooks(lesson, subs)}

    reference = grades["reference"]
    assert reference.score == reference.max_score > 0, reference.per_question
    assert grades["blank"].score == 0, grades["blank"].per_question
    for student, (_, failing) in cases.items():
        want = {
            cell: (0.0 if cell in failing else top, top)
            for cell, (_, top) in reference.per_question.items()
        }
        assert grades[student].per_question == want, f"{lesson}/{student}"
