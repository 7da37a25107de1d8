"""The chain's own versions of nbgrader steps decide exactly as nbgrader's do."""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbgrader.nbgraderformat import ValidationError
from nbgrader.preprocessors import CheckCellMetadata

from autograder.grading.chain.run import _book_steps


def _cell(**meta):
    base = {
        "grade": True,
        "grade_id": "t1",
        "locked": True,
        "points": 2,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    base.update(meta)
    cell = nbformat.v4.new_code_cell("assert True")
    cell.metadata["nbgrader"] = {k: v for k, v in base.items() if v is not None}
    return cell


CASES = {
    "valid": [_cell(), nbformat.v4.new_markdown_cell("text")],
    "points not a number": [_cell(points="two")],
    "grade id missing": [_cell(grade_id=None)],
    "an unknown schema key": [_cell(extra=1)],
    "old schema": [_cell(schema_version=2)],
    "new schema": [_cell(schema_version=4)],
    "duplicate ids": [_cell(), _cell()],
    "locked is a string": [_cell(locked="yes")],
}


def _outcome(step, cells):
    nb = nbformat.v4.new_notebook(cells=copy.deepcopy(cells))
    try:
        step().preprocess(nb, {})
    except (ValidationError, Exception) as exc:  # noqa: BLE001 - compared below
        return type(exc).__name__, str(exc)
    return "passed", ""


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_metadata_check_decides_as_nbgraders(case):
    ours = _book_steps()["CheckCellMetadata"]
    assert ours is not CheckCellMetadata and issubclass(ours, CheckCellMetadata)
    assert _outcome(ours, CASES[case]) == _outcome(CheckCellMetadata, CASES[case])
    if case != "valid":
        assert _outcome(ours, CASES[case])[0] != "passed", case
