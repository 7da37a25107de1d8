"""The student library gives no graded answer away (the delegation probe)."""

from __future__ import annotations

import collections
import dataclasses

import pytest

from autograder.lessons import lesson_names
from autograder.lessons.conventions import grade_id
from autograder.publish.probe import (
    HELPERS,
    DelegationError,
    helpers,
    probe_notebook,
    run_probe,
    task_functions,
    watch_notebook,
)
from autograder.publish.probe_watch import parts, public_callables, substitute

#: A course helper planted in the probe's kernel: ``course.planted``, with a
#: helper whose result holds the answer in an attribute, one that holds it in a
#: dict, and one that comes close but does not reproduce the hidden test.
PLANTED_MODULE = """
import torch


class Plan:
    def __init__(self, n, dtype):
        self.n, self.dtype = n, dtype


def size_plan(free_bytes, dtype=torch.float32, copies=3):
    import math

    if free_bytes < 0 or copies < 1:
        raise ValueError("no plan")
    size = torch.tensor([], dtype=dtype).element_size()
    return Plan(math.isqrt(int(free_bytes) // (copies * size)), dtype)


def device_info(prefer=None):
    if prefer not in (None, "cpu", "cuda", "mps"):
        raise ValueError(f"unknown device {prefer!r}")
    kind = "cpu"
    if prefer != "cpu":
        if prefer == "mps" and torch.backends.mps.is_available():
            kind = "mps"
        elif torch.cuda.is_available():
            kind = "cuda"
        elif torch.backends.mps.is_available():
            kind = "mps"
    return {"device": torch.device(kind), "why": "planted"}


def near_size(free_bytes, dtype=torch.float32, copies=3):
    return float(size_plan(free_bytes, dtype, copies).n)
"""
PLANTED = f"""
import sys, types
_planted = types.ModuleType("course.planted")
exec({PLANTED_MODULE!r}, _planted.__dict__)
sys.modules["course.planted"] = _planted
"""
#: ``course.devices.choose_device`` as it would be if it took Task 1.1's
#: preference and its ``.device`` were the answer of Day 01's ``pick_device``.
#: (The real one takes no preference, so that no library call does the task.)
INDEX_FREE_CHOICE = """
import torch
import course.devices
_choose = course.devices.choose_device


def _index_free(prefer=None):
    if prefer not in (None, "cpu", "cuda", "mps"):
        raise ValueError(f"unknown device {prefer!r}")
    if prefer == "cpu":
        return course.devices.DeviceChoice(torch.device("cpu"), "asked")
    if prefer == "mps" and course.devices.mps_available():
        return course.devices.DeviceChoice(torch.device("mps"), "asked")
    if prefer == "cuda" and torch.cuda.is_available():
        return course.devices.DeviceChoice(torch.device("cuda"), "asked")
    choice = _choose()
    return course.devices.DeviceChoice(torch.device(choice.device.type), choice.reason)


_index_free.__module__ = "course.devices"
course.devices.choose_device = _index_free
"""


def test_every_declared_helper_names_a_real_answer_cell():
    for lesson, declared in HELPERS.items():
        ids = {grade_id(c) for c in probe_notebook(lesson).cells}
        assert set(declared) <= ids, lesson
        for line in declared.values():
            assert line.startswith("from course.")


def test_the_probe_imports_the_helper_over_the_task():
    nb = probe_notebook("05_numpy_to_cupy")
    cell = next(c for c in nb.cells if grade_id(c) == "05-to-numpy")
    assert cell.source.rstrip().endswith(helpers("05")["05-to-numpy"])


def test_every_public_course_function_and_class_is_a_helper():
    found = public_callables()
    for name in (
        "course.devices.choose_device",
        "course.devices.DeviceChoice",
        "course.backend.host_copy",
        "course.data.iris",
        "course.timing.benchmark",
        "course.racecheck.race_check",
    ):
        assert name in found
    assert "course.results.submit" not in found  # sends results, computes nothing
    assert not [n for n in found if n.rsplit(".", 1)[1].startswith("_")]
    # Names a module imports from elsewhere are tried where they are defined.
    assert "course.devices.force_cpu" not in found and "course.env.force_cpu" in found


def test_parts_reach_one_level_into_a_result():
    @dataclasses.dataclass
    class Choice:
        device: str
        reason: str

    Pair = collections.namedtuple("Pair", "left right")
    assert parts(Choice("cuda", "why")) == {".device": "cuda", ".reason": "why"}
    assert parts(Pair(1, 2)) == {".left": 1, ".right": 2}
    assert parts({"a": 1, 2: "b"}) == {"['a']": 1, "[2]": "b"}
    assert parts([5, 6]) == {"[0]": 5, "[1]": 6}
    assert parts("text") == {} and parts(3.0) == {}


def test_a_helper_stands_in_for_the_task_as_a_student_would_write_it():
    scope: dict = {}
    exec(substitute("pick", "course.devices.choose_device", ".device"), scope)
    assert str(scope["pick"]()) == "cpu"
    scope = {}
    exec(substitute("describe", "course.devices.describe_device", "['type']"), scope)
    assert scope["describe"]("cpu") == "cpu"  # a dict's part stands in as well


def test_the_watched_notebook_watches_every_task_during_its_hidden_test():
    nb = watch_notebook("01")
    ids = [c["id"] for c in nb.cells]
    assert ids[0] == "probe-setup"
    for task in ("01-pick-device", "01-usable-memory", "01-largest-matrix"):
        answer = ids.index(task)
        assert ids[answer + 1] == f"probe-wrap-{task}"
        test = ids.index(f"{task}-hidden-test")
        assert ids[test - 1] == f"probe-enter-{task}"
        assert ids[test + 1] == f"probe-leave-{task}"
    wrap = nb.cells[ids.index("probe-wrap-01-largest-matrix")]
    assert "['largest_square_matrix']" in wrap.source
    assert task_functions("def f(x):\n    pass\nclass C:\n    pass\ndef g():\n  1") == [
        "f",
        "g",
    ]


@pytest.fixture(scope="module")
def planted_probe() -> DelegationError:
    with pytest.raises(DelegationError) as caught:
        run_probe("01", setup=INDEX_FREE_CHOICE + PLANTED)
    return caught.value


@pytest.mark.slow
def test_choose_device_holding_the_answer_in_an_attribute_is_caught(planted_probe):
    assert (
        "01-pick-device: course.devices.choose_device(...).device reproduces the "
        "reference; a student could delegate the task to it"
    ) in str(planted_probe).splitlines()


@pytest.mark.slow
def test_a_planted_helper_with_the_answer_in_an_attribute_is_caught(planted_probe):
    assert (
        "01-largest-matrix: course.planted.size_plan(...).n reproduces the reference"
        in str(planted_probe)
    )


@pytest.mark.slow
def test_a_planted_helper_with_the_answer_in_a_dict_item_is_caught(planted_probe):
    assert (
        "01-pick-device: course.planted.device_info(...)['device'] reproduces the "
        "reference" in str(planted_probe)
    )


@pytest.mark.slow
def test_a_helper_that_does_not_reproduce_the_results_passes(planted_probe):
    assert "near_size" not in str(planted_probe)
    rerun = planted_probe.report.rerun["01-largest-matrix"]
    assert "course.planted.near_size(...)" in rerun  # agreed per call, not exactly


@pytest.mark.slow
@pytest.mark.parametrize("lesson", lesson_names())
def test_no_course_helper_reproduces_a_hidden_test(lesson):
    report = run_probe(lesson)
    assert report.helpers > 50 and report.calls
    assert set(report.graded.values()) <= {0.0}
    declared = {f"{gid}: {line!r}" for gid, line in helpers(lesson).items()}
    assert declared <= set(report.graded)
