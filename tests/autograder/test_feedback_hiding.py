"""Feedback keeps no output that could quote a hidden test, and course check
shows what it prints safely."""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from autograder.classgrade.reports import Result
from autograder.grading.chain.sanitize import SanitizeOutputs
from autograder.grading.feedback import WITHHELD, HideHiddenTests
from autograder.lessons import REPO_ROOT
from tests.autograder.test_output_caps import (  # noqa: F401
    HIDDEN,
    LESSON,
    _answer_cell,
    _notebook,
    _run,
    _test_cell,
)


def _graded_notebook():
    encoded = base64.b64encode(HIDDEN.encode()).decode()
    return _notebook(
        new_markdown_cell("# Day"),
        _answer_cell("print('before')"),
        _test_cell("check()\n" + HIDDEN, "t-hidden"),
        _answer_cell("print(In[-2])"),
        _test_cell("visible()", "t-visible"),
        new_code_cell("print(encoded)"),
    ), encoded


def test_no_output_of_a_non_test_cell_after_the_first_hidden_test_is_shown():
    nb, encoded = _graded_notebook()
    outputs = {
        1: "before\n",
        2: "Test passed.\n",
        3: HIDDEN,
        4: "Test passed.\n",
        5: encoded,
    }
    for index, text in outputs.items():
        nb.cells[index].outputs = [new_output("stream", name="stdout", text=text)]
    nb, _ = HideHiddenTests().preprocess(nb, {})
    texts = [[o.get("text") for o in c.get("outputs", [])] for c in nb.cells]
    assert texts[1] == ["before\n"]  # ran before any hidden test
    assert texts[3] == [WITHHELD] and texts[5] == [WITHHELD]
    assert texts[4] == ["Test passed.\n"]
    page = json.dumps(nb)
    assert "secret-check" not in page and encoded not in page


@pytest.mark.slow
def test_a_hook_cannot_print_hidden_tests_into_feedback(tmp_path):
    hook = (
        "import base64\n"
        "def leak(info):\n"
        "    print(base64.b64encode(info.raw_cell.encode()).decode())\n"
        "get_ipython().events.register('pre_run_cell', leak)\n"
    )
    nb = _notebook(
        _answer_cell(hook),
        _test_cell("x = 1\n" + HIDDEN.replace("answer() == 42", "x == 1"), "t1"),
        _answer_cell("print(In)"),
    )
    nb, _, _ = _run(nb, tmp_path)
    raw = json.dumps([c.outputs for c in nb.cells[2:]])
    assert "secret-check" in raw  # the attack worked in the graded notebook
    nb, _ = HideHiddenTests().preprocess(nb, {})
    nb.cells[1].outputs = []  # the verdict's one output stands there
    secret = base64.b64encode(nb.cells[1].source.encode()).decode()[:40]
    page = json.dumps([c.outputs for c in nb.cells])
    assert "secret-check" not in page and "x == 1" not in page
    assert secret not in page


def test_widget_state_is_dropped_from_feedback():
    nb = _notebook(_answer_cell("x"))
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    nb, _ = SanitizeOutputs().preprocess(nb, {})
    assert "widgets" not in nb.metadata


def test_the_feedback_chains_hide_hidden_tests():
    from autograder.config.settings import grading_config

    steps = grading_config(REPO_ROOT).GenerateFeedback.preprocessors
    assert HideHiddenTests in steps and SanitizeOutputs in steps


# -- the terminal of `course check` --------------------------------------------


def test_course_check_escapes_control_characters(tmp_path, monkeypatch, capsys):
    import autograder.classgrade as classgrade
    from autograder.cli import main

    forged = "\x1b[2K\r\x1b[32mok \x1b[0m01-all 2 / 2"
    result = Result(
        "you",
        LESSON,
        "graded\x1b[0m",
        score=0.0,
        max_score=2.0,
        per_question={"01-q\x1b[32m": [0.0, 2.0]},
        hints={"01-q\x1b[32m": forged},
        message="msg\u202eevil\x08",
        flags=["flag\x9b31m"],
    )
    monkeypatch.setattr(
        classgrade,
        "grade_class",
        lambda *a, **k: SimpleNamespace(results=[result], problems=[]),
    )
    mine = tmp_path / f"mine_{LESSON}.ipynb"
    mine.write_text("{}", encoding="utf-8")
    assert main(["check", str(mine), "--lesson", LESSON, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\b" not in out
    assert "\u202e" not in out and "\x9b" not in out
    assert "\\x1b[32mok" in out and "\\u202e" in out and "\\x9b" in out


def test_course_check_does_not_read_an_oversized_notebook(tmp_path, monkeypatch):
    import autograder.classgrade as classgrade
    import autograder.grading.chain.execute as execute
    import autograder.lessons as lessons
    from autograder.cli import main

    big = tmp_path / f"mine_{LESSON}.ipynb"
    big.write_text(" " * 5000, encoding="utf-8")
    monkeypatch.setattr(execute, "source_limit", lambda config: 1000)

    def refuse(path):
        raise AssertionError("the oversized notebook was parsed")

    monkeypatch.setattr(lessons, "lesson_of", refuse)
    result = Result("you", LESSON, "too-large", message="not graded: too large")
    monkeypatch.setattr(
        classgrade,
        "grade_class",
        lambda *a, **k: SimpleNamespace(results=[result], problems=[]),
    )
    assert main(["check", str(big), "--out", str(tmp_path)]) == 0
