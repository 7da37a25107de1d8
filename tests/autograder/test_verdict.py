"""The verdict step and the results protocol, on tiny artificial cells.

As nbgrader's own ``tests/preprocessors/`` do: each test builds a cell or two
by hand and runs one step on it, no kernel involved.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.grading.chain import verdict as v
from autograder.grading.compare import compare_results
from course.fakecupy import fake_cupy
from course.results import Approx, Bound, encode, outcome

RESOURCES = {"nbgrader": {"assignment": "01_devices", "student": "s", "notebook": "n"}}


def _test_cell(gid: str, source: str = "check()", hidden: bool = True) -> NotebookNode:
    if hidden:
        source += "\n### BEGIN HIDDEN TESTS\nsubmit(got)\n### END HIDDEN TESTS\n"
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": gid,
        "points": 2,
        "solution": False,
        "locked": True,
    }
    cell["id"] = gid
    return cell


def _judge(cell, status, reference, monkeypatch):
    nb = new_notebook(cells=[cell])
    monkeypatch.setattr(
        "autograder.grading.reference.reference_results",
        lambda lesson: {cell.metadata["nbgrader"]["grade_id"]: encode(reference)},
    )
    resources = dict(RESOURCES, course={"status": {cell["id"]: status}})
    nb, _ = v.Verdict().preprocess(nb, resources)
    return nb.cells[0].outputs, nb.metadata["course"]["verdicts"]


# -- comparing results ------------------------------------------------------------


def test_equal_results_match_and_every_kind_of_difference_is_named():
    want = {"x": np.arange(3.0), "d": torch.device("cuda"), "n": 3, "f": 0.5}
    assert compare_results(encode(want), encode(dict(want))) == []
    wrong = compare_results(
        encode(want),
        encode({"x": np.arange(3.0) + 1, "d": "cuda", "n": 3, "f": 0.5}),
    )
    assert any("x: 3 of 3 value(s) differ" in m for m in wrong)
    assert any("expected torch.device('cuda'), got 'cuda' (a str)" in m for m in wrong)


@pytest.mark.parametrize(
    ("got", "message"),
    [
        (np.arange(3, dtype=np.float32), "dtype float32, expected float64"),
        (np.arange(4.0), "shape (4,), expected (3,)"),
        (fake_cupy.asarray(np.arange(3.0)), "expected a NumPy array, got a device"),
        (
            torch.arange(3.0, dtype=torch.float64),
            "expected a NumPy array, got a tensor",
        ),
        ([0.0, 1.0, 2.0], "expected a NumPy array, got a list"),
    ],
)
def test_type_shape_dtype_and_device_come_before_values(got, message):
    problems = compare_results(encode({"x": np.arange(3.0)}), encode({"x": got}))
    assert len(problems) == 1 and message in problems[0]


def test_an_object_that_equals_everything_is_not_an_answer():
    class Always:
        def __eq__(self, other):
            return True

    problems = compare_results(encode({"x": 3}), encode({"x": Always()}))
    assert problems and "expected a Python int" in problems[0]


@pytest.mark.parametrize(
    "want, got, ok",
    [
        (3, np.int64(3), True),
        (3, np.uint16(3), True),
        (3, np.int64(4), False),
        (1.5, np.float32(1.5), True),
        (1.5, np.float64(1.5), True),
        (True, np.bool_(True), True),
        (3, np.float64(3.0), False),  # another kind of number
        (3, np.array(3), False),  # an array, even 0-d, is not a number
    ],
)
def test_a_numpy_scalar_counts_as_the_python_number_of_its_kind(want, got, ok):
    """The grader's side of course.checks' rule for NumPy scalars."""
    problems = compare_results(encode({"x": want}), encode({"x": got}))
    assert (problems == []) is ok, problems


def test_a_list_where_a_pair_is_written_is_the_same_answer():
    assert compare_results(encode({"p": (1, 2)}), encode({"p": [1, 2]})) == []


def test_tolerances_come_from_the_reference_only():
    want = encode({"x": Approx(1.0, rtol=1e-3)})
    assert compare_results(want, encode({"x": 1.0005})) == []
    assert compare_results(want, encode({"x": 1.01}))
    # A submission that claims a looser tolerance for itself gains nothing.
    assert compare_results(want, encode({"x": Approx(1.01, rtol=1.0)}))


def test_a_few_ulps_pass_and_lenient_values_accept_any_number_type():
    x = np.float32(1.0) + np.finfo(np.float32).eps
    ulps = Approx(np.float32(1.0), rtol=4 * float(np.finfo(np.float32).eps))
    assert compare_results(encode({"x": ulps}), encode({"x": x})) == []
    lenient = encode({"x": Approx(np.float64(2.0), strict=False)})
    for got in (2.0, np.float64(2.0), fake_cupy.asarray(np.float64(2.0))):
        assert compare_results(lenient, encode({"x": got})) == []


def test_bounds_and_raised_exceptions():
    assert compare_results(encode({"b": Bound(3, high=3)}), encode({"b": 3})) == []
    assert (
        "above the allowed maximum 3"
        in compare_results(encode({"b": Bound(3, high=3)}), encode({"b": 4}))[0]
    )
    raised = outcome(int, "x")
    assert (
        compare_results(encode({"e": raised}), encode({"e": outcome(int, "y")})) == []
    )
    problems = compare_results(encode({"e": raised}), encode({"e": 3}))
    assert "should raise ValueError" in problems[0]


@pytest.mark.parametrize(
    "tree",
    [
        {"t": "array", "kind": "numpy", "dtype": "|O", "shape": [1], "data": "AAAA"},
        {"t": "array", "kind": "numpy", "dtype": "<f8", "shape": [9], "data": "AAAA"},
        {"t": "array", "kind": "numpy", "dtype": "<f8", "shape": [10**12], "data": ""},
        {"t": "dict", "v": "not a list"},
        "not even a dict",
    ],
)
def test_malformed_results_fail_with_a_message_and_never_raise(tree):
    want = encode({"x": np.arange(1.0)})
    got = {"t": "dict", "v": [[encode("x"), tree]]}
    problems = compare_results(want, got)
    assert problems and all(isinstance(p, str) for p in problems)


# -- the verdict preprocessor ---------------------------------------------------------


def _record(gid, checks=(), results=None, **extra):
    record = {"gid": gid, "checks": list(checks), "results": [], "error": None}
    if results is not None:
        record["results"] = [encode(results)]
    record.update(extra)
    return record


def _check(name="check_equal", ok=True, actual=None, expected=None):
    entry = {"c": name, "ok": ok}
    if expected is not None:
        entry["expected"] = encode(expected)
    if actual is not None:
        entry["actual"] = encode(actual)
    return entry


def _judge(cell, record, reference, monkeypatch):
    from autograder.grading.chain.referee import PLAN, RECORDS

    gid = cell.metadata["nbgrader"]["grade_id"]
    nb = new_notebook(cells=[cell])
    monkeypatch.setattr(
        "autograder.grading.reference.measured_reference",
        lambda lesson: {gid: reference},
    )
    plan = {"tests": {gid: cell.source}, "names": {}, "lesson": "01_devices"}
    found = {PLAN: plan, RECORDS: {gid: record} if record else {}}
    resources = dict(RESOURCES, course=found)
    nb, _ = v.Verdict().preprocess(nb, resources)
    return nb.cells[0].outputs, nb.metadata["course"]["verdicts"][gid]


def test_a_hidden_test_passes_only_with_results_equal_to_the_reference(monkeypatch):
    gid = "01-x-hidden-test"
    want = _record(gid, [_check("check_type")], {"x": 1})
    outputs, verdict = _judge(_test_cell(gid), want, want, monkeypatch)
    assert verdict["passed"] and [o.output_type for o in outputs] == ["stream"]
    wrong = _record(gid, [_check("check_type")], {"x": 2})
    _, verdict = _judge(_test_cell(gid), wrong, want, monkeypatch)
    assert "results differ from the reference" in verdict["message"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"error": "AssertionError: boom"}, "AssertionError: boom"),
        ({"results": []}, "sent no results"),
        ({"checks": []}, "made 0 checks where the reference made 1"),
        ({"checks": [_check("check_type", ok=False)]}, "did not pass"),
    ],
)
def test_a_test_fails_for_every_other_reason(monkeypatch, change, message):
    gid = "01-x-hidden-test"
    want = _record(gid, [_check("check_type")], {"x": 1})
    got = dict(want, **change)
    out, verdict = _judge(_test_cell(gid), got, want, monkeypatch)
    assert not verdict["passed"] and message in verdict["message"]
    assert [o.output_type for o in out] == ["error"]  # exactly one output: a fail


def test_a_test_the_referee_never_ran_fails(monkeypatch):
    gid = "01-x-test"
    want = _record(gid, [_check()])
    _, verdict = _judge(_test_cell(gid, hidden=False), None, want, monkeypatch)
    assert "this test did not run" in verdict["message"]


def test_each_check_is_judged_again_on_the_values_it_saw(monkeypatch):
    """A check recorded as passed with values that differ still fails: the grader
    compares what the check saw itself, here."""
    gid = "01-x-test"
    want = _record(gid, [_check(actual=3, expected=3)])
    ok = _record(gid, [_check(actual=4, expected=4)])  # from the student's own data
    forged = _record(gid, [_check(actual=4, expected=3)])
    assert _judge(_test_cell(gid, hidden=False), ok, want, monkeypatch)[1]["passed"]
    _, verdict = _judge(_test_cell(gid, hidden=False), forged, want, monkeypatch)
    assert not verdict["passed"] and "differ" in verdict["message"]


def test_close_checks_use_the_reference_tolerance(monkeypatch):
    gid = "01-x-test"
    close = {"c": "check_close", "ok": True, "expected": encode(np.asarray(1.0))}
    want = _record(gid, [dict(close, rtol=encode(1e-3), atol=encode(0.0))])
    loose = dict(close, rtol=encode(1.0), atol=encode(1.0))  # the student's claim
    near = _record(gid, [dict(loose, actual=encode(np.asarray(1.0005)))])
    far = _record(gid, [dict(loose, actual=encode(np.asarray(1.01)))])
    assert _judge(_test_cell(gid, hidden=False), near, want, monkeypatch)[1]["passed"]
    _, verdict = _judge(_test_cell(gid, hidden=False), far, want, monkeypatch)
    assert not verdict["passed"]


def test_stderr_and_a_number_in_the_kernel_neither_zero_nor_score(monkeypatch):
    gid = "01-x-test"
    cell = _test_cell(gid, hidden=False)
    cell.outputs = [
        new_output("stream", name="stderr", text="a warning\n"),
        new_output("execute_result", data={"text/plain": "0.25"}, execution_count=1),
    ]
    want = _record(gid, [_check()])
    out, verdict = _judge(cell, want, want, monkeypatch)
    assert verdict["passed"] and [o.output_type for o in out] == ["stream"]
    from nbgrader.utils import determine_grade

    assert determine_grade(cell) == (2.0, 2.0)


def test_without_the_referee_nothing_is_earned(monkeypatch):
    nb = new_notebook(cells=[_test_cell("01-x-test", hidden=False)])
    nb, _ = v.Verdict().preprocess(nb, dict(RESOURCES, course={"status": {}}))
    assert not nb.metadata["course"]["verdicts"]["01-x-test"]["passed"]
