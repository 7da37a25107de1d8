"""nbgrader cell metadata, read in one place.

Thin wrappers over :mod:`nbgrader.utils` that also accept plain dictionaries
(cells read from untrusted JSON), so the rest of the grader never digs through
``cell["metadata"]["nbgrader"]`` by hand.
"""

from __future__ import annotations

from typing import Any


def nbgrader_meta(cell: Any) -> dict[str, Any]:
    """The cell's nbgrader metadata, or an empty dict (never raises)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def grade_id(cell: Any) -> str | None:
    """The cell's ``grade_id``, if it has one."""
    value = nbgrader_meta(cell).get("grade_id")
    return value if isinstance(value, str) and value else None


def is_test(cell: Any) -> bool:
    """An autograded test cell: graded, code, and not an answer."""
    meta = nbgrader_meta(cell)
    return (
        bool(meta.get("grade"))
        and not meta.get("solution")
        and (cell.get("cell_type") == "code")
    )


def is_answer(cell: Any) -> bool:
    """A cell the student writes (nbgrader's solution cell)."""
    return bool(nbgrader_meta(cell).get("solution"))
