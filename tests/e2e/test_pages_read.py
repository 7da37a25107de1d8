"""A feedback page read in Chromium: long output and error lines wrap at the
page's edge, and a stale hand grade shows both scores. Its screenshot goes to
``screenshots/feedback-page.png``."""

from __future__ import annotations

import pytest
from nbformat.v4 import new_markdown_cell, new_output

from autograder.grading.feedback import render_page
from tests.autograder.test_output_caps import _answer_cell, _notebook, _test_cell
from tests.e2e.test_browser import SHOTS, browser  # noqa: F401 - fixture

pytestmark = pytest.mark.slow

LONG = (
    "AssertionError: train made 300 syncs over 300 epochs (one each epoch: "
    "loss.item() in the loop); the budget is 1: keep the losses on the device "
    "and read them once after the loop"
)


def test_long_lines_wrap_and_a_stale_hand_grade_shows_both_scores(
    browser,  # noqa: F811 - the fixture imported above
    tmp_path,
):
    answer = _answer_cell("history = train(model, epochs=300)")
    answer.outputs = [new_output("stream", name="stdout", text=LONG * 2 + "\n")]
    test = _test_cell("check_train(history)", "t-train")
    test.outputs = [
        new_output("error", ename="AssertionError", evalue=LONG, traceback=[LONG, LONG])
    ]
    nb = _notebook(new_markdown_cell("# Day 03"), answer, test)
    marks = {
        "score": {"t-train": 1.0},
        "points": {"t-train": 2.0},
        "comments": {},
        "penalty": 0.0,
        "stale": {"t-train": [1.0, 2.0]},
    }
    page_file = tmp_path / "page.html"
    page_file.write_text(render_page(nb, "o'brien", "03_sync_trap", marks), "utf-8")
    page = browser.new_page()
    page.set_viewport_size({"width": 900, "height": 900})
    page.goto(page_file.as_uri())
    outputs = page.locator(".output_area pre")
    assert outputs.count() >= 2
    wide = page.evaluate(
        "() => [...document.querySelectorAll('.output_area pre')]"
        ".filter(p => p.scrollWidth > p.clientWidth + 1).length"
    )
    assert wide == 0
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    stale = page.locator("li.hand-stale").inner_text()
    assert "grade 1 / 2 was given before the tests last graded" in stale
    assert "they now give 2 / 2" in stale
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "feedback-page.png"), full_page=True)
    page.close()
