"""The one leak scan, and what a page without solutions shows of an answer."""

from __future__ import annotations

import copy

import nbformat

from autograder.lessons.conventions import nbgrader_meta
from autograder.publish.leaks import (
    answer_outputs,
    scan_texts,
    student_edition_forbidden,
)
from autograder.publish.site import finish_page, page_notebook

LESSON = "06_linear_regression"


def _with_outputs():
    """Day 06's page with made-up outputs: an answer cell printing the values
    its reference computes, and a lesson cell printing a line of its own."""
    nb = page_notebook(LESSON)
    answer = next(c for c in nb.cells if nbgrader_meta(c).get("solution"))
    lesson = next(c for c in nb.cells if c.cell_type == "code" and not nbgrader_meta(c))
    answer.outputs = [
        nbformat.v4.new_output("stream", text="predict: [1.2345 2.3456 3.4567]\n"),
        nbformat.v4.new_output(
            "execute_result", data={"text/plain": "array([0.98765, 1.87654])"}
        ),
        nbformat.v4.new_output("stream", text="the data: 100 rows, 3 features\n"),
    ]
    lesson.outputs = [
        nbformat.v4.new_output("stream", text="the data: 100 rows, 3 features\n")
    ]
    return nb, answer.get("id"), lesson.get("id")


def test_a_page_without_solutions_shows_no_output_of_an_answer():
    nb, answer, lesson = _with_outputs()
    printed = answer_outputs(nb, LESSON, allowed="")
    # what only the answer printed is forbidden; a line the lesson prints too is not
    assert set(printed) == {
        "predict: [1.2345 2.3456 3.4567]",
        "array([0.98765, 1.87654])",
    }
    assert all(v == f"an output of an answer of {LESSON}" for v in printed.values())
    page = finish_page(copy.deepcopy(nb), LESSON, solutions=False)
    cells = {c.get("id"): c for c in page.cells}
    assert cells[answer].outputs == [] and cells[answer].execution_count is None
    # the stub (the cell prints predict(X_test[:3]) after it): on the page, no
    # output at all, where the reference's run printed the expected values
    assert 'raise NotImplementedError("Replace this line' in cells[answer].source
    assert len(cells[lesson].outputs) == 1  # the lesson's own cells keep theirs
    shown = finish_page(copy.deepcopy(nb), LESSON, solutions=True)
    assert len({c.get("id"): c for c in shown.cells}[answer].outputs) == 3


def test_the_scan_finds_a_reference_output_as_a_reader_meets_it():
    nb, _, _ = _with_outputs()
    forbidden = {**student_edition_forbidden(), **answer_outputs(nb, LESSON, "")}
    page = "<p>predict: [1.2345 2.3456 3.4567]</p>"
    found = scan_texts(
        {"days/06.html": (page, "predict: [1.2345 2.3456 3.4567]")}, forbidden
    )
    assert found == [
        f"days/06.html: contains an output of an answer of {LESSON}: "
        "'predict: [1.2345 2.3456 3.4567]'"
    ]
    assert scan_texts({"ok.html": ("the data: 100 rows", "")}, forbidden) == []


def test_highlighted_code_and_json_are_read_as_a_reader_meets_them(tmp_path):
    from autograder.publish.bundle import check_files
    from autograder.publish.leaks import visible_text

    forbidden = student_edition_forbidden()
    line = next(k for k, v in forbidden.items() if "an answer of" in v and "=" in k)
    # Pygments splits a line of code into spans; the scan still sees the line
    left, _, right = line.partition("=")
    page = f'<pre><span class="n">{left}</span><span class="o">=</span>{right}</pre>'
    found = scan_texts({"day.html": (page, visible_text(".html", page))}, forbidden)
    assert found and line in found[0]
    # a JSON file in the bundle is read as its decoded strings
    root = tmp_path / "bundle"
    (root / "data").mkdir(parents=True)
    note = line.replace('"', '\\"')
    (root / "data" / "x.json").write_text(f'{{"note": "{note}"}}')
    assert any("data/x.json" in p for p in check_files(root))


def test_the_one_place_that_cuts_blocks_out_keeps_everything_else():
    from autograder.lessons.conventions import (
        block_lines,
        hidden_markers,
        solution_markers,
        strip_hidden,
        without_blocks,
    )

    begin, end = hidden_markers()
    answer = solution_markers()
    source = (
        f'"""doc."""\ncheck(a)\n    ### {begin}\n    secret = 1\n    ### {end}\n'
        f"tail()\n# {answer[0]}\nx = 2\n# {answer[1]}\nlast"
    )
    assert strip_hidden(source) == (
        f'"""doc."""\ncheck(a)\ntail()\n# {answer[0]}\nx = 2\n# {answer[1]}\nlast'
    )
    assert without_blocks(source, hidden_markers(), answer) == (
        '"""doc."""\ncheck(a)\ntail()\nlast'
    )
    assert block_lines(source, hidden_markers()) == ["secret = 1"]
    assert block_lines(source, answer) == ["x = 2"]
