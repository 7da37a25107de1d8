"""Reassembly: the released notebook, with only the student's answers taken over.

First step of grading (in ``Autograde.sanitize_preprocessors``). Whatever was
done to a submission (test cells deleted, reordered, duplicated, edited, their
metadata stripped, the kernelspec changed) the notebook that runs is the
released student edition with the student's answer cells put in: answers are
matched by ``grade_id``, or by their first code line where the metadata is gone.
Every change is flagged, and answers that reach into the interpreter are listed
for review (:mod:`autograder.scan`); both go into the notebook's ``course``
metadata.

Guard cells (:mod:`autograder.guard`) go first and before every test cell: a
second line of defence that restores the check functions an answer may have
replaced. Grades do not depend on them: the verdict is made outside the kernel
(:mod:`autograder.chain.verdict`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import guard
from autograder.conventions import grade_id, is_answer, nbgrader_meta
from autograder.feedback import strip_hidden
from autograder.scan import scan_answers

#: Notebook metadata key where the chain records what it found.
META = "course"


def _first_line(source: str) -> str:
    for line in source.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.strip()
    return ""


def _guard_cell(kind: str, source: str, cell_id: str) -> Any:
    cell = nbformat.v4.new_code_cell(source, metadata={"course_guard": kind})
    cell["id"] = cell_id[:64]
    return cell


def _visible(source: str) -> str:
    """A cell's source without hidden tests and without blank-line differences."""
    lines = strip_hidden(source).strip().splitlines()
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _cells_by_id(submitted: Any) -> dict[str, list[Any]]:
    by_id: dict[str, list[Any]] = {}
    for cell in submitted.get("cells", []):
        if isinstance(cell, dict) and grade_id(cell):
            by_id.setdefault(grade_id(cell), []).append(cell)
    return by_id


def _structure_flags(submitted: Any, release: Any, by_id: dict) -> list[str]:
    flags = [f"duplicated cell {g}" for g, cells in by_id.items() if len(cells) > 1]
    release_ids = [grade_id(c) for c in release.cells if grade_id(c)]
    flags += [f"unknown grade_id {g}" for g in by_id if g not in release_ids]
    order = [grade_id(c) for c in submitted.get("cells", []) if isinstance(c, dict)]
    known = [g for g in order if g in release_ids]
    if known != [g for g in release_ids if g in order] and len(set(order)) == len(
        order
    ):
        flags.append("cells reordered")
    return flags


def _answer_for(cell: Any, submitted: Any, by_id: dict, flags: list[str]) -> Any:
    gid = grade_id(cell)
    candidates = by_id.get(gid, [])
    if not candidates:
        first = _first_line(cell.source)
        candidates = [
            c
            for c in submitted.get("cells", [])
            if isinstance(c, dict)
            and c.get("cell_type") == cell.cell_type
            and first
            and _first_line(str(c.get("source", ""))) == first
        ]
        flags.append(
            f"metadata of {gid} missing"
            + ("; matched by its first line" if candidates else "; answer not found")
        )
    return candidates[-1] if candidates else None


def reassemble(submitted: Any, release: Any) -> tuple[Any, list[str]]:
    """Rebuild a submission on the released notebook; return it and the flags."""
    by_id = _cells_by_id(submitted)
    flags = _structure_flags(submitted, release, by_id)
    rebuilt = nbformat.v4.new_notebook(metadata=dict(release.metadata))
    rebuilt.cells.append(
        _guard_cell("install", guard.install_source(), "guard-install")
    )
    for cell in release.cells:
        new = nbformat.from_dict(cell)
        gid = grade_id(cell)
        if nbgrader_meta(cell).get("grade") and not is_answer(cell):
            rebuilt.cells.append(
                _guard_cell("restore", guard.restore_source(), f"guard-before-{gid}")
            )
        if is_answer(cell):
            answer = _answer_for(cell, submitted, by_id, flags)
            if answer is not None:
                if answer.get("cell_type") != cell.cell_type:
                    flags.append(f"cell type of {gid} changed")
                else:
                    source = answer.get("source", "")
                    new.source = (
                        "".join(source) if isinstance(source, list) else str(source)
                    )
        elif gid:
            original = by_id.get(gid, [])
            if not original:
                flags.append(f"test or locked cell {gid} missing (restored)")
            elif any(
                _visible(str(c.get("source", ""))) != _visible(cell.source)
                for c in original
            ):
                flags.append(f"test or locked cell {gid} edited (restored)")
            elif any(c.get("cell_type") != cell.cell_type for c in original):
                flags.append(f"cell type of {gid} changed (restored)")
        rebuilt.cells.append(new)
    kernel = submitted.get("metadata", {}).get("kernelspec", {}).get("name")
    if kernel and kernel != release.metadata.get("kernelspec", {}).get("name"):
        flags.append(f"kernelspec changed to {kernel!r} (reset)")
    return rebuilt, flags


def release_path(config: Any, assignment: str, notebook: str) -> Path:
    """Where the course keeps the released (student) edition of a notebook."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    folder = coursedir.format_path(coursedir.release_directory, ".", assignment)
    return Path(folder) / f"{notebook}.ipynb"


class Reassemble(NbGraderPreprocessor):
    """Rebuild the submission on the released notebook (see the module)."""

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        info = resources["nbgrader"]
        path = release_path(self.config, info["assignment"], info["notebook"])
        if not path.is_file():
            self.log.warning("No released notebook at %s: not reassembled", path)
            return nb, resources
        release = nbformat.read(path, as_version=4)
        rebuilt, flags = reassemble(nb, release)
        answers = [(grade_id(c), c.source) for c in rebuilt.cells if is_answer(c)]
        rebuilt.metadata[META] = {"flags": flags, "review": scan_answers(answers)}
        return rebuilt, resources
