"""Hidden-test feedback: what a failed comparison tells, by policy.

Under ``message`` (the default) a student learns what differs and where, never
a value of the reference, so a hidden answer cannot be read off the feedback
and hard-coded; ``values`` keeps the messages that quote both sides;
``pass-fail`` says only ``failed``.
"""

from __future__ import annotations

import base64
import copy
import math
import re

import numpy as np
import pytest
import torch

from autograder.grading import compare
from autograder.grading.compare import (
    DEFAULT_POLICY,
    FAILED,
    MESSAGE,
    PASS_FAIL,
    POLICIES,
    VALUES,
    compare_results,
)
from course.results import Bound, encode

#: Cases, with the messages ``values`` gives (the grader's wording until now)
#: and those ``message`` gives.
CASES = {
    "float": (
        {"x": 6.831749},
        {"x": 6.8},
        "x: 1 of 1 value(s) differ; first: got 6.8, expected 6.831749 "
        "(tolerance rtol=1e-09, atol=1e-12)",
        "x: 1 of 1 value(s) differ beyond the tolerance (rtol=1e-09, atol=1e-12); "
        "yours is 6.8",
    ),
    "array": (
        {"x": np.array([1.0, 2.5, 3.25])},
        {"x": np.array([1.0, 2.0, 3.0])},
        "x: 2 of 3 value(s) differ; first at index (1,): got 2, expected 2.5 "
        "(tolerance rtol=1e-09, atol=1e-12)",
        "x: 2 of 3 value(s) differ beyond the tolerance (rtol=1e-09, atol=1e-12); "
        "first at index (1,), where yours is 2; your values: [1, 2, 3]",
    ),
    "int": (
        {"n": 42},
        {"n": 41},
        "n: got 41, expected 42",
        "n: got 41, which is not the int expected",
    ),
    "str": (
        {"s": "secret"},
        {"s": "guess"},
        "s: got 'guess' (a str), expected 'secret' (a str)",
        "s: got 'guess' (a str), which is not the str expected",
    ),
    "bool": (
        {"b": True},
        {"b": False},
        "b: got False, expected True",
        "b: got False, expected True",  # two values: the other one is no secret
    ),
    "device": (
        {"d": torch.device("cuda")},
        {"d": torch.device("cpu")},
        "d: got torch.device('cpu'), expected torch.device('cuda')",
        "d: got torch.device('cpu'), which is not the torch.device expected",
    ),
    "device as a str": (
        {"d": torch.device("mps")},
        {"d": "cpu"},
        "d: expected torch.device('mps'), got 'cpu' (a str)",
        "d: expected a torch.device, got 'cpu' (a str)",
    ),
    "keys that are data": (
        {"h": {3: 1, 7: 2, "name": 0}},
        {"h": {}},
        "h: missing key(s) 3, 7, 'name'",
        "h: missing key(s) 'name' and 2 other(s)",
    ),
    "a bound is a stated requirement": (
        {"b": Bound(0.95, low=0.9)},
        {"b": 0.25},
        "b: 0.25 is below the required minimum 0.9",
        "b: 0.25 is below the required minimum 0.9",
    ),
    "shape": (
        {"x": np.zeros((2, 3))},
        {"x": np.zeros((3, 2))},
        "x: shape (3, 2), expected (2, 3)",
        "x: shape (3, 2), expected (2, 3)",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_policy_says_what_it_should(case):
    want, got, values, message = CASES[case]
    want, got = encode(want), encode(got)
    assert compare_results(want, got, reveal=VALUES) == [values]
    assert compare_results(want, got, reveal=MESSAGE) == [message]
    assert compare_results(want, got) == [message]  # the default
    assert compare_results(want, got, reveal=PASS_FAIL) == [FAILED]
    for policy in POLICIES:
        assert compare_results(want, want, reveal=policy) == []


def test_the_policies_and_a_clear_error_for_any_other():
    assert POLICIES == ("pass-fail", "message", "values")
    assert DEFAULT_POLICY == MESSAGE == "message" and FAILED == "failed"
    with pytest.raises(ValueError, match="use one of 'pass-fail', 'message'"):
        compare_results(encode({"x": 1}), encode({"x": 2}), reveal="all")
    # the policy holds for one call only
    compare_results(encode({"n": 1}), encode({"n": 2}), reveal=VALUES)
    assert compare.compare(encode(3), encode(4)) == [
        "result: got 4, which is not the int expected"
    ]


# -- every lesson's reference ------------------------------------------------------


def _shifted_floats(values: np.ndarray, up: bool) -> np.ndarray:
    sign = 1.0 if up else -1.0
    return values + sign * (1.0 + 0.5 * np.abs(values))


def _perturbed(node, up=True):
    """The tree with every value changed and every type, shape, dtype and
    device kept: floats moved away (``up`` one way, else the other, so the two
    never meet), ints by 1 or 2, strings extended; bools and devices flipped
    (up) or kept. Keys, exceptions and bounds' limits stay."""
    if not isinstance(node, dict):
        return node
    node, t = copy.copy(node), node.get("t")
    if t == "float":
        value = float(node["v"])
        if math.isfinite(value):
            node["v"] = repr(float(_shifted_floats(np.float64(value), up)))
    elif t == "int":
        node["v"] = str(int(node["v"]) + (1 if up else 2))
    elif t == "str":
        node["v"] += "~" if up else "^"
    elif t == "bool" and up:
        node["v"] = not node["v"]
    elif t == "device" and up:
        node["v"] = "meta" if node["v"] != "meta" else "cpu"
    elif t == "dtype" and up:
        node["v"] = "torch.int8" if node["v"] != "torch.int8" else "torch.bool"
    elif t == "array" and node.get("data") is not None:
        values = np.frombuffer(base64.b64decode(node["data"]), np.dtype(node["dtype"]))
        if values.dtype.kind in "fc":
            values = _shifted_floats(values, up).astype(values.dtype)
        elif values.dtype.kind in "iu":
            values = values + (1 if up else 2)
        elif up:
            values = ~values
        node["data"] = base64.b64encode(values.tobytes()).decode("ascii")
    elif t in ("list", "tuple"):
        node["v"] = [_perturbed(v, up) for v in node["v"]]
    elif t == "dict":
        node["v"] = [[k, _perturbed(v, up)] for k, v in node["v"]]
    elif t in ("approx", "bound"):
        node["v"] = _perturbed(node["v"], up)
    return node


def _numbers(node, found):
    """The reference's values a message could leak, as the texts they print as:
    floats with four significant digits or more, ints of four digits or more."""
    if not isinstance(node, dict):
        return found
    t = node.get("t")
    floats: list[float] = []
    if t == "float":
        floats = [float(node["v"])]
    elif t == "int" and abs(int(node["v"])) >= 1000:
        found.add(str(int(node["v"])))
    elif t == "array" and node.get("data") is not None:
        values = np.frombuffer(base64.b64decode(node["data"]), np.dtype(node["dtype"]))
        if values.dtype.kind == "f":
            floats = [float(v) for v in values.ravel()[:10_000]]
        elif values.dtype.kind in "iu":
            found.update(str(int(v)) for v in values.ravel()[:10_000] if abs(v) >= 1000)
    for value in floats:
        if math.isfinite(value) and len(f"{value:.6g}".lstrip("-0.").split("e")[0]) > 4:
            found.update({f"{value:.8g}", f"{value:.6g}", f"{value:.4g}", repr(value)})
    for child in node.get("v") if t in ("list", "tuple") else []:
        _numbers(child, found)
    for _, child in node.get("v") if t == "dict" else []:
        _numbers(child, found)
    if t in ("approx", "bound"):
        _numbers(node["v"], found)
    return found


def _labels(node, found):
    """The texts of every dict key: the tests' own labels, the same whatever
    the answer (a label may quote a test's inputs, and an answer may be one)."""
    if isinstance(node, dict) and node.get("t") == "dict":
        for key, child in node["v"]:
            value = key.get("v") if isinstance(key, dict) else None
            found.update({str(value), repr(value)} if value is not None else ())
            _labels(child, found)
    elif isinstance(node, dict) and node.get("t") in ("list", "tuple"):
        for child in node["v"]:
            _labels(child, found)
    elif isinstance(node, dict) and node.get("t") in ("approx", "bound"):
        _labels(node["v"], found)
    return found


def _leaks(messages, numbers, labels=frozenset()):
    """The reference's numbers in ``messages``, their labels left out."""
    text = " | ".join(messages)
    # what the submission returned is its own: shown, and no leak
    text = re.sub(r"your values: (\[[^\]]*\]|min [^;|]*)", " ", text)
    text = re.sub(r"(yours is|got) [^;|,]*", " ", text)
    for label in sorted(labels, key=len, reverse=True):
        text = text.replace(label, " ")
    tokens = set(re.findall(r"-?\d[\d.]*(?:e[-+]?\d+)?", text))
    return sorted(tokens & numbers)


def check_lesson(lesson):
    """For every hidden test of ``lesson``: under ``message`` no message for a
    perturbed submission holds a number of the reference, and the messages are
    the same whatever the reference's values; ``pass-fail`` agrees. Returns
    ``(tests, failed comparisons, values-mode messages that quote the reference)``
    so that a caller can see the check bites."""
    from autograder.grading.reference import reference_results

    tests = failing = quoting = 0
    for grade_id, reference in reference_results(lesson).items():
        tests += 1
        submission = _perturbed(reference, up=True)
        other = _perturbed(reference, up=False)  # the same shape, other values
        told = compare_results(reference, submission, reveal=MESSAGE)
        numbers, labels = _numbers(reference, set()), _labels(reference, set())
        leaks = _leaks(told, numbers, labels)
        assert not leaks, (grade_id, told, leaks)
        assert told == compare_results(other, submission, reveal=MESSAGE), grade_id
        shown = compare_results(reference, submission, reveal=VALUES)
        assert bool(told) == bool(shown), grade_id
        failing += bool(told)
        quoting += bool(_leaks(shown, numbers, labels))
        failed = compare_results(reference, submission, reveal=PASS_FAIL)
        assert failed == ([FAILED] if shown else []), grade_id
        assert compare_results(reference, reference) == [], grade_id
    return tests, failing, quoting


@pytest.mark.slow  # the first call runs each lesson's solution once
@pytest.mark.parametrize(
    "lesson", ["01_devices", "04_call_magic", "07_logistic_regression"]
)
def test_message_feedback_reveals_no_reference_value_on_real_lessons(lesson):
    tests, failing, quoting = check_lesson(lesson)
    assert failing == tests  # every perturbed submission fails every hidden test
    assert quoting  # and ``values`` does quote the reference: the check bites
