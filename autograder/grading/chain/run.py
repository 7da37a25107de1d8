"""The chain run on one notebook in memory: nbgrader's autograde without a gradebook.

``nbgrader autograde`` (and formgrader's button) runs the steps the course
config lists in ``Autograde.sanitize_preprocessors`` and
``Autograde.autograde_preprocessors`` through a converter that reads and
writes a course folder and a gradebook. ``course grade`` runs the *same*
lists, read from the same config, on a notebook in memory:

- ``OverwriteKernelspec`` and ``OverwriteCells`` (which put the lesson's
  kernelspec and locked cells, hidden tests included, back in) run as they
  are, but read the lesson's cells from a :class:`CellBook`, the gradebook's
  cells exported once per lesson (:func:`export_cells`), not a gradebook;
- ``SaveAutoGrades`` stores each grade cell's score; it is left out, and
  :func:`cell_scores` reads
  the same scores (nbgrader's ``determine_grade``) for the batch's one writer
  of the course gradebook (:mod:`autograder.classgrade.gradebook`);
- ``AssignLatePenalties`` needs the due date and the submission time, which
  only the course gradebook has; it is left out, and runs there, once per
  batch.

So a grading job writes no gradebook and reads none back. The samples test
(``test_plain_nbgrader_autograde_gives_the_same_grades``) holds the two paths
to the same scores.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from traitlets.utils.importstring import import_item

from course.i18n import notebook_language, use_language

#: Steps of the config's lists that only write the gradebook: left out.
GRADEBOOK_STEPS = frozenset({"SaveAutoGrades", "AssignLatePenalties"})


def export_cells(db_url: str, lesson: str) -> dict[str, Any]:
    """What ``OverwriteCells`` and ``OverwriteKernelspec`` read of a lesson in
    the gradebook at ``db_url`` (made by ``generate_assignment``), as data."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        nb = gradebook.find_notebook(lesson, lesson)
        return {
            "kernelspec": nb.kernelspec,
            "source_cells": [
                {
                    "name": c.name,
                    "cell_type": c.cell_type,
                    "locked": bool(c.locked),
                    "source": c.source,
                    "checksum": c.checksum,
                }
                for c in nb.source_cells
            ],
            "grade_cells": {c.name: float(c.max_score) for c in nb.grade_cells},
            "solution_cells": [c.name for c in nb.solution_cells],
            "task_cells": {c.name: float(c.max_score) for c in nb.task_cells},
        }


class CellBook:
    """The few lookups of nbgrader's ``Gradebook`` those two steps make, on
    :func:`export_cells`'s data."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._source = {c["name"]: SimpleNamespace(**c) for c in data["source_cells"]}
        self._graded = {
            name: SimpleNamespace(name=name, max_score=points)
            for name, points in {**data["grade_cells"], **data["task_cells"]}.items()
        }
        self._notebook = SimpleNamespace(
            kernelspec=data["kernelspec"],
            source_cells=list(self._source.values()),
            grade_cells=[self._graded[n] for n in data["grade_cells"]],
            solution_cells=[SimpleNamespace(name=n) for n in data["solution_cells"]],
            task_cells=[self._graded[n] for n in data["task_cells"]],
        )

    def __enter__(self) -> CellBook:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def find_notebook(self, notebook: str, assignment: str) -> Any:
        return self._notebook

    def _find(self, found: dict, name: str) -> Any:
        from nbgrader.api import MissingEntry

        if name not in found:
            raise MissingEntry()
        return found[name]

    def find_source_cell(self, name: str, notebook: str, assignment: str) -> Any:
        return self._find(self._source, name)

    def find_graded_cell(self, name: str, notebook: str, assignment: str) -> Any:
        return self._find(self._graded, name)


@functools.lru_cache(maxsize=1)
def _book_steps() -> dict[str, type]:
    """``OverwriteCells`` and ``OverwriteKernelspec``, each reading the
    resources' :class:`CellBook` where nbgrader's opens the gradebook; the
    rest of each step is nbgrader's own code."""
    import json

    from nbgrader.preprocessors import (
        NbGraderPreprocessor,
        OverwriteCells,
        OverwriteKernelspec,
    )

    class OverwriteCellsFromBook(OverwriteCells):
        def preprocess(self, nb: Any, resources: Any):
            self.notebook_id = resources["nbgrader"]["notebook"]
            self.assignment_id = resources["nbgrader"]["assignment"]
            self.gradebook = resources["course_cells"]
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            if self.add_missing_cells:
                nb, resources = self.add_missing_grade_cells(nb, resources)
                nb, resources = self.add_missing_task_cells(nb, resources)
            return nb, resources

    class OverwriteKernelspecFromBook(OverwriteKernelspec):
        def preprocess(self, nb: Any, resources: Any):
            book = resources["course_cells"]
            info = resources["nbgrader"]
            kernelspec = book.find_notebook(info["notebook"], info["assignment"])
            if kernelspec.kernelspec:
                nb.metadata["kernelspec"] = json.loads(kernelspec.kernelspec)
            return nb, resources

    return {
        "OverwriteCells": OverwriteCellsFromBook,
        "OverwriteKernelspec": OverwriteKernelspecFromBook,
        "CheckCellMetadata": _metadata_check(),
    }


def _metadata_check() -> type:
    """nbgrader's ``CheckCellMetadata`` with the schema checked once per process.

    Its validator calls ``jsonschema.validate`` on every cell, which checks
    the *schema* itself each time: 52 ms of a grading job's 330 ms in the
    worker (the step runs twice per notebook). Here the schema's validator is
    built once; the cell checks, their order and their errors are nbgrader's.
    """
    import traceback

    import jsonschema
    from nbgrader.nbgraderformat import ValidationError, common
    from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
    from nbgrader.preprocessors import CheckCellMetadata

    schemas: dict[int, Any] = {}

    class SchemaOnce(common.BaseMetadataValidator):
        def validate_cell(self, cell: Any) -> None:
            if "nbgrader" not in cell.metadata:
                return
            version = cell.metadata["nbgrader"].get("schema_version", 0)
            if version != self.schema_version:  # nbgrader's own messages
                return super().validate_cell(cell)
            if version not in schemas:
                kind = jsonschema.validators.validator_for(self.schema)
                kind.check_schema(self.schema)
                schemas[version] = kind(self.schema)
            error = jsonschema.exceptions.best_match(
                schemas[version].iter_errors(cell.metadata["nbgrader"])
            )
            if error is not None:
                raise error

    class Validator(MetadataValidatorV3, SchemaOnce):
        """``MetadataValidatorV3``, whose base check is :class:`SchemaOnce`."""

    class CheckCellMetadataOnce(CheckCellMetadata):
        def preprocess(self, nb: Any, resources: Any):  # nbgrader's, with Validator
            try:
                Validator().validate_nb(nb)
            except ValidationError:
                self.log.error(traceback.format_exc())
                msg = (
                    "Notebook failed to validate; the nbgrader metadata may be "
                    "corrupted."
                )
                self.log.error(msg)
                raise ValidationError(msg) from None
            return nb, resources

    return CheckCellMetadataOnce


def chain_steps(config: Any, part: str) -> list[type]:
    """The config's ``sanitize`` or ``autograde`` steps, without
    :data:`GRADEBOOK_STEPS`."""
    from nbgrader.converters import Autograde

    name = f"{part}_preprocessors"
    listed = config.Autograde.get(name) or getattr(Autograde, name).default_value
    steps = []
    for step in listed:
        cls = import_item(step) if isinstance(step, str) else step
        cls = _book_steps().get(cls.__name__, cls)
        if cls.__name__ not in GRADEBOOK_STEPS:
            steps.append(cls)
    return steps


def _quiet_log() -> logging.Logger:
    """The steps' log: nbgrader's warnings (each hidden test it puts back is
    "changed") stay out of the terminal, as in its converter's own log."""
    log = logging.getLogger("autograder.grading.chain.steps")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
        log.propagate = False
    return log


def autograde(
    nb: Any,
    config: Any,
    *,
    student: str,
    lesson: str,
    workdir: Path,
    cells: dict[str, Any],
    release: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """Run the chain on ``nb`` (changed in place); return it and the resources.

    ``workdir`` is a folder of this job's own: kernels get empty folders in it.
    ``cells`` is the lesson's :func:`export_cells`. The released notebook is
    found through ``config`` (``CourseDirectory``), as nbgrader's converter
    finds it. ``release`` (:class:`autograder.lessons.releases.Release`) is
    the rules it is graded under, whose reference the tests compare with
    (None: the repository's own lesson).
    """
    Path(workdir).mkdir(parents=True, exist_ok=True)
    resources: dict[str, Any] = {
        "unique_key": lesson,
        "metadata": {"path": str(workdir), "name": lesson},
        "nbgrader": {"student": student, "assignment": lesson, "notebook": lesson},
        "course_cells": CellBook(cells),
        "course_release": release,
    }
    log = _quiet_log()
    before = os.environ.get("NBGRADER_EXECUTION")
    # The tests' messages, the comparisons' and the feedback's speak the
    # notebook's language (its release stamp's).
    with use_language(notebook_language(nb)):
        try:
            for part in ("sanitize", "autograde"):
                if part == "autograde":  # as nbgrader's converter marks that pass
                    os.environ["NBGRADER_EXECUTION"] = "autograde"
                for cls in chain_steps(config, part):
                    # Each step's own ``enabled`` counts, as in nbgrader's
                    # converter (nbconvert's ClearMetadataPreprocessor is off).
                    step = cls(config=config)
                    step.log = log
                    nb, resources = step(nb, resources)
        finally:
            if before is None:
                os.environ.pop("NBGRADER_EXECUTION", None)
            else:
                os.environ["NBGRADER_EXECUTION"] = before
    return nb, resources


def cell_scores(nb: Any) -> dict[str, tuple[float | None, float]]:
    """``{grade_id: (auto score or None, max score)}`` for every grade cell, as
    nbgrader's ``SaveAutoGrades`` records them (None: manual grading only)."""
    from nbgrader import utils

    found = {}
    for cell in nb.cells:
        if utils.is_grade(cell):
            auto, top = utils.determine_grade(cell)
            found[cell.metadata["nbgrader"]["grade_id"]] = (
                None if auto is None else float(auto),
                float(top),
            )
    return found


def unanswered(nb: Any) -> list[str]:
    """Answer cells left as released: nbgrader's "No response." comment."""
    from nbgrader import utils

    return [
        cell.metadata["nbgrader"]["grade_id"]
        for cell in nb.cells
        if utils.is_solution(cell)
        and not utils.is_task(cell)
        and cell.metadata["nbgrader"].get("checksum") == utils.compute_checksum(cell)
    ]
