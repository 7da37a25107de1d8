"""Feedback pages that a submission cannot script or restyle.

A feedback page is the graded notebook rendered as HTML. Whatever a student's
code displayed goes into it, so before rendering, :class:`SanitizeOutputs`
keeps only outputs that the page shows as escaped text or as an image:

* ``text/plain``, ``image/png`` and ``image/jpeg`` of displays and results
  (HTML, JavaScript, SVG, Markdown, LaTeX and widget outputs are replaced by a
  note saying what was not shown);
* stream output and error messages, which the exporter escapes;
* an answer written in Markdown is shown as plain text (an indented block), so
  its HTML is not rendered; its attachments are dropped.

Scores and banners come from the page template alone, and each output stays in
its own cell. Widget state a kernel left in the notebook's metadata is dropped
(the page would embed it as script data).
"""

from __future__ import annotations

from typing import Any

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.lessons.conventions import is_answer

#: Output types shown in feedback; everything else is named, not rendered.
SAFE_TYPES = ("text/plain", "image/png", "image/jpeg")


def _safe_output(output: Any) -> Any:
    kind = output.get("output_type")
    if kind not in ("display_data", "execute_result"):
        return output
    data = output.get("data", {})
    kept = {k: v for k, v in data.items() if k in SAFE_TYPES}
    dropped = sorted(k for k in data if k not in SAFE_TYPES)
    if dropped and "text/plain" not in kept:
        kept["text/plain"] = f"[{', '.join(dropped)} output not shown in feedback]"
    output["data"] = kept
    output["metadata"] = {}
    return output


def as_plain_text(source: str) -> str:
    """Markdown that shows ``source`` verbatim: an indented code block."""
    lines = source.splitlines() or [""]
    return "*Your answer (shown as text):*\n\n" + "\n".join(
        "    " + line for line in lines
    )


class SanitizeOutputs(NbGraderPreprocessor):
    """Keep only outputs that render as escaped text or images (see the module)."""

    def preprocess(self, nb: Any, resources: Any):
        nb.get("metadata", {}).pop("widgets", None)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell: Any, resources: Any, index: int):
        if cell.get("cell_type") == "code":
            cell.outputs = [_safe_output(o) for o in cell.get("outputs", [])]
        elif cell.get("cell_type") == "markdown" and is_answer(cell):
            cell.source = as_plain_text(cell.source)
            cell.pop("attachments", None)
        elif cell.get("cell_type") == "raw":
            cell.metadata.pop("raw_mimetype", None)
            cell.metadata.pop("format", None)
            cell["cell_type"] = "markdown"
            cell.source = as_plain_text(cell.source)
        return cell, resources


__all__ = ["SAFE_TYPES", "SanitizeOutputs", "as_plain_text"]
