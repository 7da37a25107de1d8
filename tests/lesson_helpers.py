"""Build submissions for grading tests: the reference with some answers replaced."""

from __future__ import annotations

from pathlib import Path

from autograder.lessons import find_lesson, source_to_notebook, write_notebook
from autograder.lessons.releases import as_released


def submission(lesson: str, path: Path, answers: dict[str, str] | None = None) -> Path:
    """Write lesson's reference notebook to ``path``, replacing some answer cells.

    ``answers`` maps a solution cell's grade_id to the code a student wrote there.
    """
    nb = as_released(source_to_notebook(find_lesson(lesson)), lesson)
    remaining = dict(answers or {})
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in remaining:
            cell.source = remaining.pop(grade_id)
    assert not remaining, f"no such answer cells: {sorted(remaining)}"
    write_notebook(nb, path)
    return path
