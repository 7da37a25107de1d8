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

import functools
import re
from typing import Any

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool

from autograder.grading.page_words import in_language
from autograder.lessons.conventions import has_hidden_tests, is_test, strip_hidden
from course.i18n import N_, _, notebook_language, say, use_language

#: What a non-test cell that ran after the hidden tests began shows instead.
WITHHELD = N_(
    "[output not shown: this cell ran after the hidden tests began, so its "
    "output could quote them]\n"
)


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
            cell.outputs = [new_output("stream", name="stdout", text=_(WITHHELD))]


class HideHiddenTests(Preprocessor):
    """Remove hidden-test code and the tracebacks that would quote it."""

    enabled = Bool(True, help="Always on: feedback must never show hidden tests.")

    def preprocess(self, nb: Any, resources: Any):
        withhold_after_hidden(nb.cells)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell: Any, resources: Any, index: int):
        if not has_hidden_tests(cell.source):
            return cell, resources
        cell.source = (
            strip_hidden(cell.source).rstrip()
            + "\n# "
            + (_("(hidden tests ran here; their code is not shown)"))
        )
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                outputs.append(
                    {
                        "output_type": "stream",
                        "name": "stderr",
                        "text": say(
                            "A hidden test failed - {message}", message=message[:500]
                        )
                        + "\n",
                    }
                )
            elif output.get("output_type") == "stream":
                outputs.append(output)
        cell.outputs = outputs
        return cell, resources


class StoreGrades(Preprocessor):
    """nbgrader's ``GetGrades``, which opens the gradebook, on values given
    instead: the marks the store holds (``resources["nbgrader"]["marks"]``,
    a :class:`~autograder.classgrade.reports.Marks` as a dict: each cell's
    score and points, an instructor's comments, the late penalty), or without
    them the graded notebook's own scores, as ``SaveAutoGrades`` stores them.
    An answer left blank gets nbgrader's "No response." unless an instructor
    wrote a comment."""

    enabled = Bool(True)

    def preprocess(self, nb: Any, resources: Any):
        from nbgrader import utils

        from autograder.grading.chain.run import cell_scores, unanswered

        info = resources.setdefault("nbgrader", {})
        own, blank = cell_scores(nb), set(unanswered(nb))
        marks = info.get("marks") or {
            "score": {k: auto or 0.0 for k, (auto, _) in own.items()},
            "points": {k: top for k, (_, top) in own.items()},
            "comments": {},
            "penalty": 0.0,
        }
        for cell in nb.cells:
            if not (utils.is_grade(cell) or utils.is_solution(cell)):
                continue
            meta = cell.metadata.nbgrader
            gid = meta["grade_id"]
            if utils.is_solution(cell) or utils.is_task(cell):
                auto = _("No response.") if gid in blank else None
                meta["comment"] = marks["comments"].get(gid) or auto
            if gid in marks["points"]:
                meta["score"] = marks["score"].get(gid, 0.0)
                meta["points"] = marks["points"][gid]
            elif gid in own:  # a cell the store does not hold: the notebook's
                meta["score"], meta["points"] = own[gid][0] or 0.0, own[gid][1]
        penalty = float(marks["penalty"] or 0.0)
        raw = float(sum(marks["score"].values()))
        info["score"] = max(0.0, raw - penalty)  # the final score
        info["max_score"] = float(sum(marks["points"].values()))
        info["late_penalty"] = penalty
        info["extended_until"] = marks.get("extended_until") or ""
        return nb, resources


def feedback_steps() -> list[type]:
    """The course config's ``GenerateFeedback.preprocessors``, the one list,
    with :class:`StoreGrades` in ``GetGrades``' place."""
    from traitlets.utils.importstring import import_item

    from autograder.config.settings import instructor_config

    listed = instructor_config(None).GenerateFeedback.preprocessors
    steps = [import_item(s) if isinstance(s, str) else s for s in listed]
    return [StoreGrades if s.__name__ == "GetGrades" else s for s in steps]


_EXPORTERS: dict[str, Any] = {}
_HIGHLIGHTED: dict[tuple[str, str, Any], str] = {}
#: What nbconvert's HTMLExporter writes on an image that has no alt text.
NO_ALT = "No description has been provided for this image"
_IMG_WITHOUT_ALT = re.compile(r"<img(?![^>]*\salt=)(?=[\s>/])", re.IGNORECASE)


def with_alt_text(html: str) -> str:
    """Every ``<img>`` without an ``alt`` attribute given :data:`NO_ALT`."""
    return _IMG_WITHOUT_ALT.sub(f'<img alt="{NO_ALT}"', html)


@functools.lru_cache(maxsize=1)
def _page_exporter_class() -> type:
    """nbconvert's ``HTMLExporter``, without its last pass.

    That pass parses the whole page with BeautifulSoup and writes it out again
    (0.3 s of the 0.45 s a page takes) to give images alt text and the lab
    template's cells a ``tabindex``. nbgrader's feedback template is the
    classic one, which has no such cells, so alt text is all it adds: done
    here with one substitution, the rest of the exporter untouched."""
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class RememberedHighlight(Highlight2HTML):
        """Pygments' HTML for a cell, kept by text: a class's pages share most
        cells (the lesson's, the tests), and highlighting is half a page's
        time. Of the cell's metadata only ``magics_language`` counts."""

        def __call__(self, source: str, language: Any = None, metadata: Any = None):
            magic = (metadata or {}).get("magics_language")
            key = (source, language or self.pygments_lexer, magic)
            if key not in _HIGHLIGHTED:
                if len(_HIGHLIGHTED) > 4096:
                    _HIGHLIGHTED.clear()
                _HIGHLIGHTED[key] = super().__call__(source, language, metadata)
            return _HIGHLIGHTED[key]

    class FeedbackPageExporter(HTMLExporter):
        def from_notebook_node(self, nb: Any, resources: Any = None, **kw: Any):
            langinfo = nb.metadata.get("language_info", {})
            lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
            highlight = self.filters.get(
                "highlight_code", RememberedHighlight(pygments_lexer=lexer, parent=self)
            )
            resources = self._init_resources(resources)
            data_type = WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources
            )
            self.register_filter("highlight_code", highlight)
            self.register_filter("filter_data_type", data_type)
            html, resources = TemplateExporter.from_notebook_node(
                self, nb, resources, **kw
            )
            return with_alt_text(html), resources

    return FeedbackPageExporter


def feedback_exporter() -> Any:
    """An HTML exporter with nbgrader's feedback template and the course's
    feedback steps (:func:`feedback_steps`: scores, the CSS header,
    :class:`HideHiddenTests`, and
    :class:`autograder.grading.chain.sanitize.SanitizeOutputs`, so that no script or
    raw HTML from a submission reaches the page). Built once per process."""
    if "page" in _EXPORTERS:
        return _EXPORTERS["page"]
    from pathlib import Path

    import nbgrader
    from traitlets.config import Config

    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    config = Config()
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_basedirs = [str(formgrader / "templates")]
    config.HTMLExporter.extra_template_paths = [
        str(formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css")
    ]
    config.Exporter.default_preprocessors = []
    exporter = _page_exporter_class()(config=config)
    for step in feedback_steps():
        exporter.register_preprocessor(step(), enabled=True)
    _EXPORTERS["page"] = exporter
    return exporter


def render_page(
    executed: Any, student: str, lesson: str, marks: dict | None = None
) -> str:
    """A graded notebook's feedback page, showing ``marks`` (what the store
    of scores holds, as a dict: manual scores, comments and the late penalty
    in), or without them the notebook's own scores."""
    import copy

    resources = {
        "unique_key": lesson,
        "nbgrader": {
            "student": student,
            "assignment": lesson,
            "notebook": lesson,
            "marks": marks,
        },
    }
    exporter = feedback_exporter()
    with use_language(notebook_language(executed)):  # the page speaks the notebook's
        html, _resources = exporter.from_notebook_node(
            copy.deepcopy(executed), resources=resources
        )
        html = named_tests(html, executed)
        html = with_stale(html, (marks or {}).get("stale"), marks or {})
        html = with_extension(html, (marks or {}).get("extended_until"))
        return in_language(html.replace("</head>", WRAP + "</head>", 1))


#: Long output and error lines wrap at the page's edge (the useful end of a
#: message is not off to the right); code stays as written.
WRAP = (
    "<style>.output_area pre, .output_subarea pre "
    "{white-space: pre-wrap; word-break: normal; overflow-wrap: break-word;}</style>\n"
)


def _in_list(html: str, lines: list[str]) -> str:
    """The page's list of scores (nbgrader's fixed template) with ``lines``
    (``<li>`` items) at its end."""
    start = html.find('<div id="toc">')
    end = html.find("</ol>", start)
    if start < 0 or end < 0 or not lines:
        return html
    return html[:end] + "".join(lines) + html[end:]


def with_extension(html: str, until: str | None) -> str:
    """The page's list of scores with a line saying the student's own due
    date, where they have an extension (nbgrader's fixed template has none)."""
    if not until:
        return html
    from html import escape

    words = say(
        "Extension: your due date for this lesson is {until} UTC",
        until=escape(until.replace("T", " ")),
    )
    return _in_list(html, [f'<li class="extension">{words}</li>\n'])


def with_stale(html: str, stale: dict | None, marks: dict) -> str:
    """The page's list of scores with a line for each hand grade given before
    the latest autograde (a new answer, new points): both scores, and which
    one counts."""
    from html import escape

    lines = []
    for cell, (hand, auto) in sorted((stale or {}).items()):
        top = float(marks.get("points", {}).get(cell, 0.0))
        words = say(
            "{cell}: your instructor's grade {hand} / {top} was given before "
            "the tests last graded this cell (a new answer, or new points), "
            "and they now give {auto} / {top}; the instructor's grade counts "
            "until they look at it again",
            cell=escape(cell),
            hand=f"{hand:g}",
            auto=f"{auto:g}",
            top=f"{top:g}",
        )
        lines.append(f'<li class="hand-stale">{words}</li>\n')
    return _in_list(html, lines)


def test_names(nb: Any) -> dict[str, str]:
    """Each test cell's ``grade_id`` and what it checks: its docstring's first
    line (the released cell's, which reassembly restores: a student cannot
    change it)."""
    import ast

    found = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not is_test(cell) or not meta.get("grade_id"):
            continue
        try:
            doc = ast.get_docstring(ast.parse(strip_hidden(cell.source)))
        except SyntaxError:
            doc = None
        if doc and doc.strip():
            found[meta["grade_id"]] = doc.strip().splitlines()[0]
    return found


def named_tests(html: str, nb: Any) -> str:
    """nbgrader's feedback page with each test cell named by what it checks
    instead of "Test cell" (its fixed template's word) in the page's list,
    and beside its ``grade_id`` at the cell."""
    from html import escape

    for gid, name in test_names(nb).items():
        shown, code = escape(name), escape(gid)
        html = html.replace(
            f'<a href="#{code}">Test cell</a>', f'<a href="#{code}">{shown}</a>'
        )
        html = html.replace(
            f"Grade cell: <code>{code}</code>", f"<code>{code}</code>: {shown}"
        )
    return html
