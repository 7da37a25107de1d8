"""The batch's files under its output folder, written by the main process only.

A job (:mod:`autograder.classgrade.worker`) returns its graded notebook and
feedback page as data; :func:`keep` writes them, with the result, the moment
they arrive, so an interrupted batch loses nothing that finished:

- ``results/<lesson>/<student>.json``: the :class:`Result` (what a rerun reuses);
- ``autograded/<student>/<lesson>/<lesson>.ipynb``: the graded notebook, where
  formgrader opens it;
- ``feedback/<lesson>/<student>.html``: the student's feedback page.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autograder.classgrade.reports import Result


@dataclass
class Graded:
    """What one job returns: the result, and the graded notebook (nbformat
    JSON) and feedback page (HTML) as text, empty when nothing was graded."""

    result: Result
    notebook: str = ""
    page: str = ""


def result_path(out: Path, student: str, lesson: str) -> Path:
    """Where a submission's result is stored under an output folder."""
    return Path(out) / "results" / lesson / f"{student}.json"


def notebook_path(out: Path, student: str, lesson: str) -> Path:
    """Where a submission's graded notebook is kept (nbgrader's layout)."""
    return Path(out) / "autograded" / student / lesson / f"{lesson}.ipynb"


def page_path(out: Path, student: str, lesson: str) -> Path:
    """Where a submission's feedback page is written."""
    return Path(out) / "feedback" / lesson / f"{student}.html"


def write_text(path: Path, text: str) -> None:
    """Write a file atomically (a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write JSON atomically."""
    write_text(path, json.dumps(data, indent=1, sort_keys=True))


def save(out: Path, result: Result) -> None:
    """Store a result (its JSON file)."""
    write_json(result_path(out, result.student, result.lesson), asdict(result))


def keep(out: Path, graded: Graded) -> Result:
    """Write what a job returned: notebook, page, then the result (last, so a
    stored result always has its notebook and page)."""
    result = graded.result
    if graded.notebook:
        write_text(notebook_path(out, result.student, result.lesson), graded.notebook)
    if graded.page:
        page = page_path(out, result.student, result.lesson)
        write_text(page, graded.page)
        result.feedback = str(page)
    save(out, result)
    return result


def stored(
    out: Path,
    student: str,
    lesson: str,
    digest: str | None = None,
    graded_only: bool = True,
) -> Result | None:
    """The result an earlier run stored for this submission, or None: graded
    only (unless ``graded_only`` is False), for this exact file (its
    ``digest``; None: whatever file it was)."""
    path = result_path(out, student, lesson)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = Result(**data)
    except (ValueError, TypeError):
        return None
    if digest is not None and result.digest != digest:
        return None
    if graded_only and result.status != "graded":
        return None
    return result


def stored_keys(out: Path) -> set[tuple[str, str]]:
    """Every (student, lesson) with a stored result under ``out``."""
    return {
        (path.stem, path.parent.name)
        for path in (Path(out) / "results").glob("*/*.json")
    }


def forget(out: Path, student: str, lesson: str) -> None:
    """Remove a stored result, its graded notebook and its page."""
    for path in (
        result_path(out, student, lesson),
        notebook_path(out, student, lesson),
        page_path(out, student, lesson),
    ):
        path.unlink(missing_ok=True)
