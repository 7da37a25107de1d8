"""The review scan and the feedback sanitiser, on small artificial inputs."""

from __future__ import annotations

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from autograder.grading.chain.sanitize import SanitizeOutputs
from autograder.grading.scan import scan_source
from autograder.lessons import lesson_sources, source_to_notebook
from autograder.lessons.conventions import grade_id, is_answer
from autograder.samples import all_samples


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("import ctypes", "ctypes"),
        ("import sys\nsys._getframe(1)", "sys._getframe"),
        ("import sys\nsys.settrace(f)", "settrace"),
        ("get_ipython().input_transformers_post.append(f)", "input transformers"),
        ("import gc\ngc.get_objects()", "gc"),
        ("import builtins\nbuiltins.len = f", "builtins"),
        ("import os\nos.environ['X']", "os.environ"),
        ("open('/proc/self/environ')", "/proc"),
        ("import socket", "sockets"),
        ("import subprocess", "subprocess"),
        ("import course.checks as c\nc.check_close = f", "monkeypatching"),
        ("import os\nos._exit(0)", "os._exit"),
        ("!curl example", "shell or magic"),
    ],
)
def test_interpreter_machinery_is_listed_for_review(code, reason):
    assert any(reason in found for found in scan_source(code)), scan_source(code)


def test_reference_answers_and_honest_mistakes_are_not_listed():
    for source in lesson_sources():
        for cell in source_to_notebook(source).cells:
            if is_answer(cell):
                assert scan_source(cell.source) == [], grade_id(cell)
    for sample in all_samples():
        if sample.kind == "mistake":
            for gid, code in sample.answers.items():
                assert scan_source(code) == [], (sample.name, gid)


def test_feedback_keeps_text_and_images_only():
    cell = new_code_cell("x")
    cell.outputs = [
        new_output(
            "display_data",
            data={"text/html": "<script>alert(1)</script>", "text/plain": "<HTML>"},
        ),
        new_output("display_data", data={"application/javascript": "alert(2)"}),
        new_output("display_data", data={"image/svg+xml": "<svg onload=x/>"}),
        new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
        new_output("stream", name="stdout", text="<b>printed</b>"),
    ]
    cell, _ = SanitizeOutputs().preprocess_cell(cell, {}, 0)
    kinds = [sorted(o.get("data", {})) for o in cell.outputs]
    assert kinds == [["text/plain"], ["text/plain"], ["text/plain"], ["image/png"], []]
    assert "application/javascript" in cell.outputs[1].data["text/plain"]
    assert cell.outputs[4].text == "<b>printed</b>"  # escaped by the page template


def test_a_markdown_answer_is_shown_as_text_not_rendered():
    cell = new_markdown_cell("<img src=x onerror=alert(1)>\n# Heading")
    cell.metadata["nbgrader"] = {"solution": True, "grade_id": "01-essay"}
    cell, _ = SanitizeOutputs().preprocess_cell(cell, {}, 0)
    assert all(line.startswith("    ") for line in cell.source.splitlines()[2:] if line)


def test_the_feedback_page_is_nbconverts_page_without_its_reparse():
    """The page exporter skips HTMLExporter's BeautifulSoup pass; the page
    still reads the same and every image gets the same alt text."""
    import copy

    from bs4 import BeautifulSoup
    from nbconvert import HTMLExporter
    from nbformat.v4 import new_notebook

    from autograder.grading.feedback import NO_ALT, feedback_exporter, with_alt_text

    cell = new_code_cell("plot()")
    cell.outputs = [
        new_output(
            "display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Fig>"}
        ),
        new_output("stream", name="stdout", text="<b>printed</b> & done"),
    ]
    nb = new_notebook(cells=[new_markdown_cell("# Day\n![a chart](chart.png)"), cell])
    ours = feedback_exporter()
    stock = HTMLExporter(config=ours.config)
    for step in ours._preprocessors:
        stock.register_preprocessor(step, enabled=True)
    resources = {"nbgrader": {"student": "s", "assignment": "a", "notebook": "a"}}
    pages = [
        BeautifulSoup(
            exporter.from_notebook_node(copy.deepcopy(nb), copy.deepcopy(resources))[0],
            "html.parser",
        )
        for exporter in (ours, stock)
    ]
    texts = [" ".join(page.get_text().split()) for page in pages]
    assert texts[0] == texts[1]
    alts = [[img.get("alt") for img in page.find_all("img")] for page in pages]
    assert alts[0] == alts[1] and NO_ALT in alts[0] and "a chart" in alts[0]
    bare = f'<img alt="{NO_ALT}"'
    assert with_alt_text('<img alt="x" src=a><IMG src=b><img\nsrc=c><imgx>') == (
        f'<img alt="x" src=a>{bare} src=b>{bare}\nsrc=c><imgx>'
    )


def test_remembered_highlighting_gives_each_page_its_own_code():
    """Pages share the highlighting of a cell's text; each page still shows its
    own code as nbconvert highlights it, a magics language included."""
    import copy

    from bs4 import BeautifulSoup
    from nbconvert import HTMLExporter
    from nbformat.v4 import new_notebook

    from autograder.grading.feedback import feedback_exporter

    ours = feedback_exporter()
    stock = HTMLExporter(config=ours.config)
    for step in ours._preprocessors:
        stock.register_preprocessor(step, enabled=True)
    resources = {"nbgrader": {"student": "s", "assignment": "a", "notebook": "a"}}

    def code(exporter, nb):
        html = exporter.from_notebook_node(copy.deepcopy(nb), copy.deepcopy(resources))
        page = BeautifulSoup(html[0], "html.parser")
        return [str(block) for block in page.select("div.highlight")]

    magic = new_code_cell("echo $HOME")
    magic.metadata["magics_language"] = "bash"
    first = new_notebook(cells=[new_code_cell("plot(1)"), new_code_cell("echo $HOME")])
    second = new_notebook(cells=[new_code_cell("plot(2)"), magic])
    for nb in (first, second, first):
        assert code(ours, nb) == code(stock, nb)
    assert code(ours, first) != code(ours, second)
