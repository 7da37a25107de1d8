"""A call's effects, as Python has them, across the referee's channel; a kernel
that dies costs only the cell it died in."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from autograder.grading.referee.writeback import changed, marks, write_back
from tests.autograder.test_output_caps import _answer_cell, _notebook, _run, _test_cell


def _call(function, *args, **kwargs):
    """Run ``function`` on copies of the arguments, as the kernel does, and put
    its changes back, as the referee does; the copies' result."""
    import copy

    theirs = copy.deepcopy(args)
    named = copy.deepcopy(kwargs)
    nodes = [
        ["l"] if isinstance(a, (list, dict, tuple, np.ndarray, torch.Tensor)) else 1
        for a in [*args, *kwargs.values()]
    ]
    marked = marks([*theirs, *named.values()], [*range(len(args)), *named], nodes)
    result = function(*theirs, **named)
    for key, value in changed(marked):
        mine = args[key] if isinstance(key, int) else kwargs[key]
        write_back(mine, copy.deepcopy(value))
    return result


def test_a_dict_filled_in_place_reaches_the_caller_but_its_old_values_stay():
    a = torch.ones(2)
    batch = {"x": a, "ids": [1, 2]}

    def moves_in_place(b):
        b["x"] = b["x"].to("meta")
        b["ids"].append(3)

    _call(moves_in_place, batch)
    assert batch["x"].device.type == "meta" and batch["ids"] == [1, 2, 3]
    assert a.device.type == "cpu"  # replaced in the dict, not moved


def test_in_place_changes_of_an_argument_reach_the_caller():
    x, t = np.arange(4.0), torch.zeros(3)

    def scales(array, tensor):
        array -= 1
        tensor.add_(2)

    _call(scales, x, tensor=t)
    np.testing.assert_array_equal(x, [-1, 0, 1, 2])
    assert t.tolist() == [2, 2, 2]


def test_nothing_is_written_back_when_nothing_changed():
    batch = {"x": torch.ones(2), "ids": (1, [2])}
    keep = batch["x"]

    def reads(b):
        return float(b["x"].sum()) + len(b["ids"])

    assert _call(reads, batch) == 4.0
    assert batch["x"] is keep


def test_a_list_in_a_tuple_changes_but_the_tuple_stays():
    pair = ([1], torch.ones(1))
    _call(lambda p: p[0].append(2), pair)
    assert pair[0] == [1, 2]


# -- a dead kernel costs only its cell -------------------------------------------


def _dying_notebook():
    return _notebook(
        _answer_cell("x = 41"),
        _test_cell("assert x == 41", "t1"),
        _answer_cell("import os\nos._exit(1)"),
        _test_cell("assert x == 41", "t3"),
        _answer_cell("x += 1"),
        _test_cell("assert x == 42", "t5"),
    )


@pytest.mark.slow
def test_a_new_kernel_replays_the_cells_before_the_one_that_died(tmp_path):
    nb, resources, _ = _run(_dying_notebook(), tmp_path)
    status = resources["course"]["status"]
    ids = [c.get("id") for c in nb.cells]
    assert [status.get(i) for i in ids] == ["ok", "ok", "died", "ok", "ok", "ok"]
    assert resources["course"]["restarts"] == 1
    assert nb.cells[2].outputs[0].ename == "KernelDied"
    assert "ran the cells before it again" in nb.cells[2].outputs[0].evalue
    # the replayed cells kept their first outputs; nothing ran twice into them
    assert all(len(c.outputs) <= 1 for c in nb.cells)


@pytest.mark.slow
def test_without_restarts_the_rest_of_the_notebook_is_lost(tmp_path):
    nb, resources, _ = _run(_dying_notebook(), tmp_path, max_restarts=0)
    assert resources["course"]["restarts"] == 0
    assert nb.cells[3].outputs[-1].ename == "NotRun"
    assert nb.cells[5].outputs[-1].ename == "NotRun"


@pytest.mark.slow
def test_a_kernel_that_replaces_a_dead_one_finds_nothing_the_dead_one_left(tmp_path):
    """It starts in a new, empty folder: an answer cannot tell a replay."""
    nb = _notebook(
        _answer_cell(
            "import os\nleft = sorted(os.listdir('.'))\nopen('was-here', 'w').close()"
        ),
        _test_cell("assert left == []", "t1"),
        _answer_cell("import os\nos._exit(1)"),
        _test_cell("assert left == []", "t3"),
    )
    nb, resources, _ = _run(nb, tmp_path)
    status = resources["course"]["status"]
    # t3 passes: the replayed first cell found an empty folder again
    assert [status.get(c.get("id")) for c in nb.cells] == ["ok", "ok", "died", "ok"]
