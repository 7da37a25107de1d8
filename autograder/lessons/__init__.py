"""Find the lessons and turn their sources into nbgrader notebooks.

A lesson is ``solutions/NN_topic/NN_topic.py``: a jupytext "percent" file whose
cell headers carry nbgrader metadata, for example::

    # %% nbgrader={"grade_id": "01-pick-device", "solution": true}
    # %% nbgrader={"grade": true, "grade_id": "01-pick-device-test", "points": 3}

``percent`` reads them (jupytext's format, without jupytext). Headers only
need the keys that matter; :func:`source_to_notebook` fills in the
rest of nbgrader's schema, checks the metadata, and gives every cell a stable id,
so the same source always gives byte-identical notebooks. Each release is
stamped by ``releases``, which also says which release's rules grade a
submission, and kept by ``kept`` (the course root's ``releases/``);
``scratch`` builds throwaway nbgrader course folders from them;
``catalogs`` keeps each lesson's prose translated, paragraph by paragraph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autograder.lessons.conventions import LESSON_NAME, LessonId

REPO_ROOT = Path(__file__).resolve().parents[2]
REFERENCE_PREFIX = "_ref_"
"""Names defined only inside hidden tests (reference implementations) start so."""

KERNELSPEC = {
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
    "name": "python3",
}
_NBGRADER_DEFAULTS = {
    "grade": False,
    "solution": False,
    "locked": False,
    "task": False,
    "schema_version": 3,
}


class LessonError(ValueError):
    """A lesson source is malformed; the message names the file and the cell."""


def lesson_sources(root: Path = REPO_ROOT) -> list[Path]:
    """Return ``solutions/NN_topic/NN_topic.py`` for every lesson, in order."""
    found = []
    for folder in sorted((root / "solutions").iterdir()):
        if folder.is_dir() and LESSON_NAME.match(folder.name):
            source = folder / f"{folder.name}.py"
            if source.is_file():
                found.append(source)
    return found


def lesson_names(root: Path = REPO_ROOT) -> list[str]:
    """Return the lesson (= nbgrader assignment) names, e.g. ``["01_devices"]``."""
    return [p.stem for p in lesson_sources(root)]


def find_lesson(name: str, root: Path = REPO_ROOT) -> Path:
    """Return the source of lesson ``name`` (``"01_devices"`` or just ``"01"``)
    in the repository (a kept release's: :class:`autograder.lessons.releases.
    Release`)."""
    for source in lesson_sources(root):
        if name in (source.stem, LessonId(source.stem).digits):
            return source
    known = ", ".join(lesson_names(root)) or "none"
    raise LessonError(f"No lesson named {name!r}. Lessons: {known}.")


def _nbgrader_metadata(meta: dict[str, Any], where: str, lesson: str) -> dict[str, Any]:
    full = dict(_NBGRADER_DEFAULTS)
    full.update(meta)
    grade_id = full.get("grade_id")
    if not grade_id:
        raise LessonError(f"{where}: nbgrader cell without a grade_id")
    if not LessonId(lesson).owns(grade_id):
        raise LessonError(
            f"{where}: grade_id {grade_id!r} must start with {LessonId(lesson).prefix} "
            "(the lesson number)"
        )
    if full["grade"]:
        if "points" not in full:
            raise LessonError(f"{where}: graded cell {grade_id!r} has no points")
        if not full["solution"]:
            full["locked"] = True
            if not str(grade_id).endswith("-test"):
                raise LessonError(f"{where}: test cell {grade_id!r} must end in -test")
    return full


def source_to_notebook(source: Path) -> Any:
    """Read a lesson source and return the solution notebook nbgrader expects.

    Raises:
        LessonError: a cell's nbgrader metadata is incomplete, or two cells share
            a grade_id.
    """
    import nbformat
    from nbformat import v4

    from autograder.lessons.percent import SourceError, read_cells

    lesson = source.stem
    try:
        read = read_cells(source.read_text(encoding="utf-8"), source.name)
    except SourceError as exc:
        raise LessonError(str(exc)) from None
    make = {"code": v4.new_code_cell, "markdown": v4.new_markdown_cell}
    nb = v4.new_notebook(cells=[make[c.cell_type](c.source) for c in read])
    seen: set[str] = set()
    for index, (cell, found) in enumerate(zip(nb.cells, read, strict=True)):
        where = f"{source.name}, cell {index + 1}"
        meta = found.metadata.get("nbgrader")
        tags = found.metadata.get("tags")
        cell.metadata = {}
        if tags:  # e.g. skip-grading (conventions.SKIP_AT_GRADING)
            if not all(isinstance(t, str) for t in tags):
                raise LessonError(f"{where}: tags must be a list of strings")
            cell.metadata["tags"] = list(tags)
        cell_id = f"{LessonId(lesson).prefix}cell-{index:03d}"
        if meta is not None:
            meta = _nbgrader_metadata(dict(meta), where, lesson)
            if meta["grade_id"] in seen:
                raise LessonError(f"{where}: duplicate grade_id {meta['grade_id']!r}")
            seen.add(meta["grade_id"])
            cell.metadata["nbgrader"] = meta
            cell_id = meta["grade_id"]
        cell["id"] = cell_id
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    from autograder.lessons.colab import first_cells

    nb.cells[:0] = first_cells(lesson)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def write_notebook(nb: Any, path: Path) -> None:
    """Write a notebook in nbformat's canonical layout (stable diffs)."""
    import nbformat

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def lesson_of(notebook: Path) -> str | None:
    """The lesson a notebook belongs to: from its test cells' ``grade_id``s (the
    ``01-`` prefix), else from its file name; None if neither says."""
    import json

    from autograder.lessons.conventions import grade_id

    names = lesson_names()
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        cells = []
    digits = {
        d
        for c in cells
        if isinstance(c, dict) and (d := LessonId.digits_of(grade_id(c) or ""))
    }
    found = [n for n in names if LessonId(n).digits in digits]
    if len(found) == 1:
        return found[0]
    return next((n for n in names if n in notebook.name), None)
