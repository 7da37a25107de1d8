"""The one reader of a lesson's source: jupytext's "percent" format, as the
course writes it.

A source opens with a YAML header between two ``# ---`` lines (jupytext's;
its kernelspec is the course's anyway), then cells, each starting with a
``# %%`` line whose rest is ``[markdown]`` or ``key=JSON`` pairs
(``nbgrader={...}``, ``tags=[...]``). A Markdown cell's lines lose their
``# ``; a code cell is its lines as written; blank lines at a cell's end are
the space between cells. :func:`autograder.lessons.source_to_notebook` builds
the notebook from these cells, and :mod:`autograder.lessons.code` runs them on
a machine without Jupyter's tools: one parser for both, which gives the
notebooks jupytext gives (``tests/autograder/test_lesson_parser.py`` checks
every lesson and every kept release against jupytext).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_HEADER = re.compile(r"^# %%(?P<rest>.*)$")
_PAIR = re.compile(r"\s*(?P<key>[A-Za-z_][\w.-]*)=")


class SourceError(ValueError):
    """A cell header the course's format does not allow; names the line."""


@dataclass
class Cell:
    """One cell of a lesson source: its kind, its text and its metadata."""

    cell_type: str  # "code" or "markdown"
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)
    line: int = 0  # the line of its ``# %%`` header, from 1


def read_cells(text: str, name: str = "<lesson>") -> list[Cell]:
    """The cells of a lesson source's text.

    Raises:
        SourceError: a header's metadata is not ``key=JSON`` pairs.
    """
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "# ---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "# ---"), 0)
        start = end + 1
    cells: list[Cell] = []
    body: list[str] = []
    for number, line in enumerate(lines[start:], start + 1):
        match = _HEADER.match(line)
        if match is None:
            if cells:
                body.append(line)
            elif line.strip():
                raise SourceError(f"{name}, line {number}: code before the first # %%")
            continue
        if cells:
            cells[-1].source = _finish(cells[-1].cell_type, body)
        body = []
        kind, metadata = _header(match["rest"], f"{name}, line {number}")
        cells.append(Cell(kind, "", metadata, number))
    if cells:
        cells[-1].source = _finish(cells[-1].cell_type, body)
    return cells


def _header(rest: str, where: str) -> tuple[str, dict[str, Any]]:
    rest = rest.strip()
    kind = "code"
    if rest.startswith("[markdown]"):
        kind, rest = "markdown", rest[len("[markdown]") :].strip()
    metadata: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    while rest:
        pair = _PAIR.match(rest)
        if pair is None:
            raise SourceError(f"{where}: expected key=JSON in the cell header")
        try:
            value, end = decoder.raw_decode(rest, pair.end())
        except ValueError as exc:
            raise SourceError(f"{where}: {pair['key']}= is not JSON: {exc}") from None
        metadata[pair["key"]] = value
        rest = rest[end:].strip()
    return kind, metadata


def _finish(kind: str, body: list[str]) -> str:
    while body and not body[-1].strip():
        body.pop()
    if kind == "markdown":
        body = [
            line[2:] if line.startswith("# ") else line.lstrip("#") for line in body
        ]
    return "\n".join(body)
