"""The batch's files under its output folder, written by the main process only.

A job (:mod:`autograder.classgrade.worker`) returns its graded notebook and
feedback page as data; :func:`keep` writes them, with the result, the moment
they arrive, so an interrupted batch loses nothing that finished:

- ``results/<lesson>/<student>.json``: the :class:`Result` (what a rerun reuses);
- ``autograded/<student>/<lesson>/<lesson>.ipynb``: the graded notebook, where
  formgrader opens it;
- ``feedback/<lesson>/<student>.html``: the student's feedback page, ending in
  a comment that names the marks it shows (:func:`page_basis`).

With a course gradebook, that is the store of scores (:mod:`autograder.classgrade.
gradebook`): a result's JSON then holds no score (``scores: "gradebook"``), only
what the gradebook cannot hold (status, hints, release, the file's digest).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
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


#: The fields a result's JSON leaves out when the gradebook holds its scores.
SCORES = (
    "score",
    "max_score",
    "per_question",
    "gradebook_score",
    "late_penalty",
    "seconds_late",
    "extended_until",
    "hand_stale",
    "hand",
)
_BASIS = "<!-- marks: "


def save(out: Path, result: Result) -> None:
    """Store a result (its JSON file): without its scores when the gradebook
    holds them."""
    data = asdict(result)
    if result.scores == "gradebook":
        for name in SCORES:
            data.pop(name)
    write_json(result_path(out, result.student, result.lesson), data)


def write_page(out: Path, student: str, lesson: str, html: str, basis: list) -> str:
    """Write a feedback page that shows the marks ``basis`` names; return its
    path."""
    page = page_path(out, student, lesson)
    write_text(page, f"{html}\n{_BASIS}{json.dumps(basis)} -->\n")
    return str(page)


def page_basis(out: Path, student: str, lesson: str) -> list | None:
    """The marks a written feedback page shows (see :meth:`Marks.basis`), or
    None when there is no page."""
    page = page_path(out, student, lesson)
    try:
        with open(page, "rb") as handle:
            handle.seek(max(0, page.stat().st_size - 200))
            tail = handle.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return None
    last = tail[-1] if tail else ""
    if not last.startswith(_BASIS):
        return None
    try:
        return json.loads(last[len(_BASIS) : -len(" -->")])
    except ValueError:
        return None


def keep(out: Path, graded: Graded) -> Result:
    """Write the notebook and page a job returned (a page shows the
    result's own marks); the result is stored by :func:`save`."""
    from autograder.classgrade.reports import Marks

    result = graded.result
    if graded.notebook:
        write_text(notebook_path(out, result.student, result.lesson), graded.notebook)
    if graded.page:
        basis = Marks.of(result).basis(result.digest)
        result.feedback = write_page(
            out, result.student, result.lesson, graded.page, basis
        )
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
        known = {f.name for f in fields(Result)}
        result = Result(**{k: v for k, v in data.items() if k in known})
    except (ValueError, TypeError, AttributeError):
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
