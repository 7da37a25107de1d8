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


def fill_answers(notebook: Path, answers: dict[str, str]) -> None:
    """Fill a fetched student notebook as a student would, cell by cell
    (``answers``: code by the answer cell's grade_id)."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    nbformat.write(nb, notebook)


#: The Day 01 test cell whose points an older kept release changes.
CHANGED = "01-largest-matrix-hidden-test"


def older_release(base: Path, lesson: str = "01_devices") -> tuple[Path, str]:
    """Keep, under ``base``, a release of Day 01 from before a change of
    rules: there, task 1.4's hidden test (:data:`CHANGED`) was worth 4
    points (now 2). Returns the folder of kept releases (for
    ``releases.RELEASES``) and the release's digest; its student notebook is
    ``base/notebooks/<lesson>/``."""
    from autograder.lessons import releases
    from autograder.publish.release import release

    draft = base / "draft" / "solutions" / lesson / f"{lesson}.py"
    draft.parent.mkdir(parents=True)
    text = find_lesson(lesson).read_text(encoding="utf-8")
    header = f'"grade_id": "{CHANGED}", "points": 2'
    assert header in text
    draft.write_text(text.replace(header, header[:-1] + "4"), encoding="utf-8")
    release([lesson], base / "notebooks", log=lambda *_: None, root=base / "draft")
    digest = releases.stamp_of(base / "notebooks" / lesson / f"{lesson}.ipynb")
    assert digest and digest != releases.current(lesson)
    return base / "releases", digest


def reworded_release(base: Path, lesson: str = "01_devices") -> tuple[str, Path]:
    """Keep, under ``base`` (beside :func:`older_release`'s), a release of
    the lesson with the same cells and points as now and one sentence of
    prose added. Returns its digest and its student notebook."""
    from autograder.lessons import releases
    from autograder.publish.release import release

    draft = base / "reworded" / "solutions" / lesson / f"{lesson}.py"
    draft.parent.mkdir(parents=True)
    text = find_lesson(lesson).read_text(encoding="utf-8")
    cut = text.index("# %% [markdown]\n") + len("# %% [markdown]\n")
    draft.write_text(text[:cut] + "# Reworded mid-term.\n#\n" + text[cut:], "utf-8")
    out = base / "reworded-notebooks"
    release([lesson], out, log=lambda *_: None, root=base / "reworded")
    notebook = out / lesson / f"{lesson}.ipynb"
    digest = releases.stamp_of(notebook)
    assert digest and digest != releases.current(lesson)
    assert (base / "releases" / lesson / digest).is_dir()
    return digest, notebook


def bare_job(tmp_path: Path, submitted: Path, lesson: str = "01_devices", **changes):
    """A grading :class:`~autograder.classgrade.worker.Job` for ``submitted``
    against a course holding only the lesson's released notebook (cold,
    unconfined, 10 s a cell, unless ``changes`` say otherwise)."""
    import shutil

    from autograder.classgrade.worker import Job
    from autograder.lessons import REPO_ROOT

    course = tmp_path / "course"
    (course / "notebooks" / lesson).mkdir(parents=True)
    released = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
    shutil.copyfile(released, course / "notebooks" / lesson / f"{lesson}.ipynb")
    fields = {
        "student": "s",
        "lesson": lesson,
        "path": str(submitted),
        "digest": "d",
        "course": str(course),
        "cells": str(tmp_path / "cells.json"),
        "workdir": str(tmp_path / "job"),
        "timeout": 10,
        "memory_mb": 0,
        "threads": 1,
        "warm": False,
        "confine": False,
    }
    return Job(**{**fields, **changes})


def two_cell_template(path: Path, lesson: str) -> str:
    """A template gradebook at ``path`` whose ``lesson`` has two grade cells,
    a (1 point) and b (2 points); returns its URL."""
    from nbgrader.api import Gradebook

    from autograder.classgrade.gradebook import create_gradebook
    from autograder.config.settings import put_python_on_path

    put_python_on_path()
    url = f"sqlite:///{path}"
    create_gradebook(url)
    with Gradebook(url) as book:
        book.add_assignment(lesson)
        book.add_notebook(lesson, lesson)
        for name, points in (("a", 1.0), ("b", 2.0)):
            book.add_grade_cell(
                name, lesson, lesson, max_score=points, cell_type="code"
            )
    return url
