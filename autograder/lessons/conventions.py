"""The course's conventions, in one place: lessons, markers, cell metadata.

- A **lesson** is the unit of the course (nbgrader calls it an *assignment*; the
  guides call each one a *Day*). :class:`LessonId` converts between its
  forms: the folder name ``01_devices``, the number ``1`` and the ``01-``
  prefix every ``grade_id`` of that lesson starts with.
- The **markers** that fence answers and hidden tests are nbgrader's, read from
  the course's nbgrader configuration (``ClearSolutions`` and
  ``ClearHiddenTests`` delimiters), never written out elsewhere.
- **Cell metadata** is read through thin wrappers over :mod:`nbgrader.utils`
  that also accept plain dictionaries (cells read from untrusted JSON), so the
  rest of the grader never digs through ``cell["metadata"]["nbgrader"]``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

LESSON_NAME = re.compile(r"^(\d\d)_[a-z0-9_]+$")


@dataclass(frozen=True, order=True)
class LessonId:
    """One lesson, by its folder name (``01_devices``)."""

    name: str

    def __post_init__(self) -> None:
        if not LESSON_NAME.match(self.name):
            raise ValueError(
                f"{self.name!r} is not a lesson name: two digits, an underscore "
                "and a topic in lower case, like 01_devices"
            )

    @property
    def number(self) -> int:
        """``1`` for ``01_devices``."""
        return int(self.name[:2])

    @property
    def digits(self) -> str:
        """``"01"`` for ``01_devices``."""
        return self.name[:2]

    @property
    def prefix(self) -> str:
        """``"01-"``: how every ``grade_id`` of this lesson starts."""
        return f"{self.digits}-"

    def owns(self, grade_id: str) -> bool:
        """Whether ``grade_id`` belongs to this lesson."""
        return str(grade_id).startswith(self.prefix)

    @staticmethod
    def digits_of(grade_id: str) -> str | None:
        """The lesson digits a ``grade_id`` names (``"01"`` for ``01-pick``)."""
        match = re.match(r"^(\d\d)-", str(grade_id))
        return match.group(1) if match else None

    def __str__(self) -> str:
        return self.name


# The markers, from nbgrader's configuration.


@functools.lru_cache(maxsize=1)
def _configured() -> Any:
    from autograder.config.settings import instructor_config

    return instructor_config(None)  # the course's own settings


def _delimiter(section: str, trait: str) -> str:
    from nbgrader import preprocessors

    config = _configured()
    if section in config and trait in config[section]:
        return str(config[section][trait])
    return str(getattr(getattr(preprocessors, section), trait).default_value)


def solution_markers() -> tuple[str, str]:
    """``("BEGIN SOLUTION", "END SOLUTION")`` unless the configuration says else."""
    return (
        _delimiter("ClearSolutions", "begin_solution_delimeter"),
        _delimiter("ClearSolutions", "end_solution_delimeter"),
    )


def hidden_markers() -> tuple[str, str]:
    """``("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")`` unless configured otherwise."""
    return (
        _delimiter("ClearHiddenTests", "begin_test_delimeter"),
        _delimiter("ClearHiddenTests", "end_test_delimeter"),
    )


# Blocks between markers: the one place hidden tests (and answers) are cut
# out of a source, a cell or a page.


@functools.lru_cache(maxsize=4)
def _block(markers: tuple[str, str]) -> re.Pattern[str]:
    """From the line holding the begin marker to the line holding the end
    marker, both lines included."""
    begin, end = (re.escape(m) for m in markers)
    return re.compile(
        rf"^[^\n]*{begin}.*?{end}[^\n]*(?:\n|\Z)", re.DOTALL | re.MULTILINE
    )


def without_blocks(text: str, *kinds: tuple[str, str]) -> str:
    """``text`` without any block between each pair of markers in ``kinds``."""
    for markers in kinds:
        text = _block(markers).sub("", text)
    return text


def block_lines(text: str, markers: tuple[str, str]) -> list[str]:
    """The lines inside each block between ``markers``, stripped."""
    return [
        line.strip()
        for found in _block(markers).finditer(text)
        for line in found.group(0).splitlines()[1:-1]
    ]


def strip_hidden(source: str) -> str:
    """``source`` (a cell's, or a lesson's) without its hidden tests."""
    return without_blocks(source, hidden_markers())


def has_hidden_tests(source: str) -> bool:
    return hidden_markers()[0] in source


# Cell metadata.


def _node(cell: Any) -> Any:
    from nbformat import NotebookNode, from_dict

    return cell if isinstance(cell, NotebookNode) else from_dict(cell)


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
    from nbgrader import utils

    if not isinstance(nbgrader_meta(cell), dict) or not isinstance(cell, dict):
        return False
    node = _node(
        {
            "metadata": {"nbgrader": nbgrader_meta(cell)},
            "cell_type": cell.get("cell_type"),
        }
    )
    return (
        utils.is_grade(node)
        and not utils.is_solution(node)
        and node.cell_type == "code"
    )


#: The tag of a lesson cell too slow to run while grading (a long timing, a
#: compile): grading and ``course check`` skip it; the notebook, the site and
#: the lesson run as a script run it.
SKIP_AT_GRADING = "skip-grading"


def skipped_at_grading(cell: Any) -> bool:
    """A lesson code cell (neither a test nor an answer) tagged
    :data:`SKIP_AT_GRADING`. A tag on a test or an answer is ignored."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return (
        cell.get("cell_type") == "code"
        and isinstance(tags, list)
        and SKIP_AT_GRADING in tags
        and not is_test(cell)
        and not is_answer(cell)
    )


def is_answer(cell: Any) -> bool:
    """A cell the student writes (nbgrader's solution cell)."""
    from nbgrader import utils

    return bool(
        utils.is_solution(_node({"metadata": {"nbgrader": nbgrader_meta(cell)}}))
    )
