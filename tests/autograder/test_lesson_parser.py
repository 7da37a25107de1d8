"""The one reader of lesson sources gives the cells jupytext gives, for every
lesson, and refuses a header it cannot read. (Kept releases are read by the
same parser when the kept-release check grades each one.)"""

from __future__ import annotations

import pytest

from autograder.lessons import REPO_ROOT, LessonError, source_to_notebook
from autograder.lessons.percent import SourceError, read_cells

SOURCES = sorted((REPO_ROOT / "solutions").glob("*/*.py"))


def _kept(metadata: dict) -> dict:
    return {k: v for k, v in metadata.items() if k in ("nbgrader", "tags")}


@pytest.mark.parametrize(
    "source", SOURCES, ids=[str(p.relative_to(REPO_ROOT)) for p in SOURCES]
)
def test_the_cells_are_the_ones_jupytext_reads(source):
    jupytext = pytest.importorskip("jupytext")
    theirs = jupytext.read(source, fmt="py:percent").cells
    ours = read_cells(source.read_text(encoding="utf-8"), source.name)
    assert [(c.cell_type, c.source, _kept(c.metadata)) for c in theirs] == [
        (c.cell_type, c.source, c.metadata) for c in ours
    ]


def test_headers_markdown_and_the_space_between_cells():
    text = (
        "# ---\n# jupyter:\n#   kernelspec: {}\n# ---\n\n"
        "# %% [markdown]\n# # Title\n#\n# text\n\n"
        '# %% nbgrader={"grade_id": "01-a", "solution": true} tags=["skip-grading"]\n'
        "\nx = 1\n\n\n"
        "# %%\ny = 2\n"
    )
    cells = read_cells(text)
    assert [(c.cell_type, c.source, c.line) for c in cells] == [
        ("markdown", "# Title\n\ntext", 6),
        ("code", "\nx = 1", 11),
        ("code", "y = 2", 16),
    ]
    assert cells[1].metadata == {
        "nbgrader": {"grade_id": "01-a", "solution": True},
        "tags": ["skip-grading"],
    }


@pytest.mark.parametrize(
    "header, words",
    [
        ("# %% nbgrader={not json}\n", "nbgrader= is not JSON"),
        ("# %% just words\n", "expected key=JSON"),
        ("x = 1\n# %%\n", "code before the first # %%"),
    ],
)
def test_a_header_it_cannot_read_names_its_line(header, words, tmp_path):
    with pytest.raises(SourceError, match=words):
        read_cells(header, "lesson.py")
    source = tmp_path / "solutions" / "01_x" / "01_x.py"
    source.parent.mkdir(parents=True)
    source.write_text(header)
    with pytest.raises(LessonError, match="01_x.py, line"):
        source_to_notebook(source)
