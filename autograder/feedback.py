"""Feedback that shows students their code, visible tests and scores, not hidden tests.

nbgrader's feedback is the autograded notebook rendered as HTML, and that notebook
contains the hidden tests restored for grading, in the cell sources and in the
tracebacks of failing cells. :class:`HideHiddenTests` removes both: hidden-test
source is cut out of every cell, and a failing cell that held hidden tests keeps
only its error's type and message.

Cells run in notebook order, so once the first hidden test has begun, any code
could quote it: a hook (``pre_run_cell``), the input history (``In``), or the
source encoded so that no text matches. So no output of a non-test code cell
after the first cell with a hidden test is shown, only :data:`WITHHELD`.
(Test cells there hold only the grader's verdict.)
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool

from autograder.conventions import has_hidden_tests, hidden_block, is_test

#: What a non-test cell that ran after the hidden tests began shows instead.
WITHHELD = (
    "[output not shown: this cell ran after the hidden tests began, so its "
    "output could quote them]\n"
)


def strip_hidden(source: str) -> str:
    """Remove every BEGIN/END HIDDEN TESTS block from a cell's source."""
    return hidden_block().sub("", source)


def withhold_after_hidden(cells: Any) -> None:
    """Replace the outputs of every non-test code cell after the first cell
    with a hidden test by one note (:data:`WITHHELD`)."""
    begun = False
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        if has_hidden_tests(cell.get("source", "")):
            begun = True
        elif begun and not is_test(cell) and cell.get("outputs"):
            cell.outputs = [new_output("stream", name="stdout", text=WITHHELD)]


class HideHiddenTests(Preprocessor):
    """Remove hidden-test code and the tracebacks that would quote it."""

    enabled = Bool(True, help="Always on: feedback must never show hidden tests.")

    def preprocess(self, nb: Any, resources: Any):
        """Also drop the grader's own guard cells (see autograder.guard)."""
        nb.cells = [c for c in nb.cells if "course_guard" not in c.get("metadata", {})]
        withhold_after_hidden(nb.cells)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell: Any, resources: Any, index: int):
        if not has_hidden_tests(cell.source):
            return cell, resources
        cell.source = strip_hidden(cell.source).rstrip() + (
            "\n# (hidden tests ran here; their code is not shown)"
        )
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                outputs.append(
                    {
                        "output_type": "stream",
                        "name": "stderr",
                        "text": f"A hidden test failed - {message[:500]}\n",
                    }
                )
            elif output.get("output_type") == "stream":
                outputs.append(output)
        cell.outputs = outputs
        return cell, resources


def feedback_exporter() -> Any:
    """An HTML exporter with nbgrader's feedback template and the course's filters.

    Filters, in order: nbgrader's ``GetGrades`` (scores for the template),
    the CSS header, :class:`HideHiddenTests`, and
    :class:`autograder.chain.sanitize.SanitizeOutputs` (no script or raw HTML
    from a submission reaches the page).
    """
    from pathlib import Path

    import nbgrader
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades
    from traitlets.config import Config

    from autograder.chain.sanitize import SanitizeOutputs

    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    config = Config()
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_basedirs = [str(formgrader / "templates")]
    config.HTMLExporter.extra_template_paths = [
        str(formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css")
    ]
    config.Exporter.default_preprocessors = []
    exporter = HTMLExporter(config=config)
    for step in (
        GetGrades,
        CSSHTMLHeaderPreprocessor,
        HideHiddenTests,
        SanitizeOutputs,
    ):
        exporter.register_preprocessor(step(), enabled=True)
    return exporter
