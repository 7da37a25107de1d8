"""Caps on what one submission may cost, and what its feedback and terminal show.

Every attack here runs with lowered caps: each costs a few seconds and a few MB.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionComplete
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from autograder.classgrade import worker
from autograder.grading.chain.execute import (
    DEFAULT_SOURCE_BYTES,
    GradingExecute,
    notebook_bytes,
    source_limit,
)
from tests.lesson_helpers import bare_job

HIDDEN = (
    "### BEGIN HIDDEN TESTS\n"
    "assert answer() == 42  # secret-check\n"
    "### END HIDDEN TESTS\n"
)
LESSON = "01_devices"


def _test_cell(source: str, gid: str) -> nbformat.NotebookNode:
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "locked": True,
        "points": 1,
        "grade_id": gid,
        "schema_version": 3,
    }
    return cell


def _answer_cell(source: str) -> nbformat.NotebookNode:
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": False,
        "solution": True,
        "locked": False,
        "grade_id": f"answer-{abs(hash(source)) % 10**6}",
        "schema_version": 3,
    }
    return cell


def _notebook(*cells) -> nbformat.NotebookNode:
    nb = new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _executor(**traits) -> GradingExecute:
    traits.setdefault("timeout", 30)
    return GradingExecute(warm=False, confine=False, **traits)


def _run(nb, tmp_path: Path, **traits):
    start = time.perf_counter()
    nb, resources = _executor(**traits).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}}
    )
    return nb, resources, time.perf_counter() - start


def _size(nb) -> int:
    return len(nbformat.writes(nb))


# -- every IOPub message counts (no kernel) -------------------------------------


def _msg(kind: str, content: dict, buffers=None) -> dict:
    return {
        "msg_type": kind,
        "header": {"msg_type": kind, "msg_id": "m"},
        "parent_header": {"msg_id": "p"},
        "metadata": {},
        "content": content,
        "buffers": buffers or [],
    }


def _fresh(cap: int = 1_000_000) -> tuple[GradingExecute, nbformat.NotebookNode]:
    ex = _executor(max_output_bytes=cap)
    ex.record_timing, ex.clear_before_next_output = False, False
    ex.reset_execution_trackers()
    ex.reset_counts()
    ex.nb = _notebook(_answer_cell("x"))
    return ex, ex.nb.cells[0]


STATE = {"_model_module": "m", "_model_name": "n", "value": "v" * 1000}
COUNTED = [
    (
        "update_display_data",
        {
            "data": {"text/plain": "u" * 1000},
            "metadata": {},
            "transient": {"display_id": "d"},
        },
    ),
    ("clear_output", {"wait": False, "pad": "c" * 1000}),
    (
        "comm_open",
        {"comm_id": "c1", "target_name": "jupyter.widget", "data": {"state": STATE}},
    ),
    ("comm_msg", {"comm_id": "c1", "data": {"method": "update", "state": STATE}}),
    ("comm_close", {"comm_id": "c1", "data": {"pad": "z" * 1000}}),
    ("a_type_nobody_knows", {"pad": "q" * 1000}),
]


@pytest.mark.parametrize(("kind", "content"), COUNTED, ids=[k for k, _ in COUNTED])
def test_every_iopub_message_counts_toward_the_cap(kind, content):
    ex, cell = _fresh()
    ex.process_message(_msg(kind, json.loads(json.dumps(content))), cell, 0)
    assert ex._bytes >= 1000


def test_comm_buffers_count_too():
    ex, cell = _fresh()
    content = {"comm_id": "c", "data": {"state": {}, "buffer_paths": [["b"]]}}
    ex.process_message(_msg("comm_msg", content, [b"\0" * 5000]), cell, 0)
    assert ex._bytes >= 5000


def test_kernel_bookkeeping_is_not_counted():
    ex, cell = _fresh()
    ex.process_message(_msg("execute_input", {"code": "x" * 5000}), cell, 0)
    with pytest.raises(CellExecutionComplete):  # nbclient ends the cell on idle
        ex.process_message(_msg("status", {"execution_state": "idle"}), cell, 0)
    assert ex._bytes == 0


def test_past_the_cap_no_comm_reaches_the_notebook_and_a_note_says_so_once():
    ex, cell = _fresh(cap=1500)
    for i in range(5):
        content = {
            "comm_id": f"c{i}",
            "target_name": "jupyter.widget",
            "data": {"state": dict(STATE)},
        }
        ex.process_message(_msg("comm_open", content), cell, 0)
    assert len(ex.widget_state) == 1  # the first fitted; the rest never arrived
    notes = [o for o in cell.outputs if "dropped" in o.get("text", "")]
    assert len(notes) == 1


def test_an_update_counts_per_output_it_replaces_and_past_the_cap_replaces_none():
    ex, cell = _fresh(cap=50_000)
    shown = {
        "data": {"text/plain": "x"},
        "metadata": {},
        "transient": {"display_id": "d"},
    }
    for _ in range(100):
        ex.process_message(_msg("display_data", json.loads(json.dumps(shown))), cell, 0)
    update = {
        "data": {"text/plain": "y" * 1000},
        "metadata": {},
        "transient": {"display_id": "d"},
    }
    ex.process_message(_msg("update_display_data", update), cell, 0)
    assert ex._bytes > 100 * 1000  # 100 outputs would each get the 1 kB
    assert all(o.data["text/plain"] == "x" for o in cell.outputs if "data" in o)


def test_an_unhashable_display_id_does_not_stop_the_notebook():
    ex, cell = _fresh()
    bad = {"data": {"text/plain": "x"}, "metadata": {}, "transient": {"display_id": []}}
    ex.process_message(_msg("display_data", bad), cell, 0)
    assert cell.outputs[-1].data["text/plain"] == "x"


def test_a_test_cell_keeps_a_short_error_past_the_cap():
    ex, _ = _fresh(cap=10)
    test = _test_cell("check()", "t1")
    ex.nb.cells.append(test)
    ex.process_message(_msg("stream", {"name": "stdout", "text": "x" * 100}), test, 1)
    error = {"ename": "AssertionError", "evalue": "e" * 5000, "traceback": ["t" * 9999]}
    ex.process_message(_msg("error", error), test, 1)
    kept = [o for o in test.outputs if o.output_type == "error"]
    assert len(kept) == 1 and len(kept[0].evalue) == 1000


def test_a_test_cells_results_are_capped_in_total_not_per_message():
    from course.results import MIME

    ex, _ = _fresh()
    ex.max_results_bytes = 10_000
    test = _test_cell("check()", "t1")
    ex.nb.cells.append(test)
    for _ in range(5):
        content = {"data": {MIME: {"pad": "r" * 4000}}, "metadata": {}}
        ex.process_message(_msg("display_data", content), test, 1)
    assert sum(MIME in o.get("data", {}) for o in test.outputs) == 2


# -- the attacks, through a kernel -----------------------------------------------


@pytest.mark.slow
def test_display_updates_cannot_multiply_output_past_the_cap(tmp_path):
    nb = _notebook(
        _answer_cell(
            "from IPython.display import display, update_display\n"
            "for _ in range(100):\n    display('x', display_id='d')"
        ),
        _answer_cell(
            "for _ in range(20):\n"
            "    update_display({'text/plain': 'y' * 50_000}, raw=True, display_id='d')"
        ),
        _test_cell("assert True", "t1"),
    )
    nb, _, seconds = _run(nb, tmp_path, max_output_bytes=200_000)
    assert _size(nb) < 400_000, _size(nb)  # was 5 MB: 100 outputs x 50 kB
    assert all("y" not in str(o.get("data", "")) for o in nb.cells[0].outputs)
    assert seconds < 10


@pytest.mark.slow
def test_widget_comms_cannot_fill_the_notebook_past_the_cap(tmp_path):
    nb = _notebook(
        _answer_cell(
            "from ipykernel.comm import Comm\n"
            "state = {'_model_module': 'm', '_model_name': 'n', 'v': 'z' * 50_000}\n"
            "comms = [Comm(target_name='jupyter.widget', data={'state': state})\n"
            "         for _ in range(50)]\n"
            "for c in comms:\n    c.send({'method': 'update', 'state': state})"
        ),
        _test_cell("assert True", "t1"),
    )
    nb, _, seconds = _run(nb, tmp_path, max_output_bytes=200_000)
    assert _size(nb) < 400_000, _size(nb)  # was 2.5 MB of widget state
    assert seconds < 10


@pytest.mark.slow
def test_a_loop_that_ignores_interrupts_stops_at_the_notebook_limit(tmp_path):
    tests = [_test_cell("assert True", f"t{i}") for i in range(6)]
    nb = _notebook(_answer_cell("sum(range(10**15))"), *tests)
    nb, resources, seconds = _run(nb, tmp_path, timeout=2, max_notebook_seconds=3)
    assert seconds < 10  # was 6 cells x 2 s and more: every cell timed out in turn
    assert resources["course"]["timed_out"] == 3
    unrun = [c for c in nb.cells[1:] if c.outputs and c.outputs[-1].ename == "NotRun"]
    assert unrun and all("3 s" in c.outputs[-1].evalue for c in unrun)


def test_the_default_notebook_limit_follows_the_cell_timeout():
    assert _executor(timeout=120).notebook_seconds() == 900
    assert _executor(timeout=10).notebook_seconds() == 300
    assert _executor(timeout=10, max_notebook_seconds=0).notebook_seconds() == 0


# -- a source notebook over the size limit is not run --------------------------


def test_an_oversized_notebook_is_not_run_and_every_test_says_why(tmp_path):
    nb = _notebook(_answer_cell("x = '" + "a" * 300_000 + "'"), _test_cell("1", "t1"))
    start = time.perf_counter()
    nb, resources, _ = _run(nb, tmp_path, max_source_bytes=100_000)
    assert time.perf_counter() - start < 5  # no kernel was started
    assert resources["course"]["status"] == {}
    (error,) = nb.cells[1].outputs
    assert error.ename == "NotebookTooLarge" and "100,000" in error.evalue


def test_the_size_limit_is_read_from_the_configuration():
    assert source_limit(Config()) == DEFAULT_SOURCE_BYTES == 20_000_000
    config = Config()
    config.GradingExecute.max_source_bytes = 1234
    assert source_limit(config) == 1234
    assert notebook_bytes(_notebook(_answer_cell("a" * 5000))) >= 5000


def test_the_worker_never_parses_an_oversized_submission(tmp_path, monkeypatch):
    big = tmp_path / "big.ipynb"
    big.write_text('{"cells": [' + " " * 300_000 + "]}", encoding="utf-8")
    job = bare_job(tmp_path, big, LESSON)
    monkeypatch.setattr(worker, "_source_limit", lambda job: 100_000)
    read = worker.nbformat.read

    def guarded(path, *args, **kwargs):
        assert Path(path) != big, "the oversized submission was parsed"
        return read(path, *args, **kwargs)

    monkeypatch.setattr(worker.nbformat, "read", guarded)
    result = worker.grade_job(job).result
    assert result.status == "too-large" and "100,000" in result.message
    assert result.per_question and result.score == 0
    assert all(score == 0 and top > 0 for score, top in result.per_question.values())
    assert set(result.hints) == set(result.per_question)
    assert result.seconds < 10


# -- feedback keeps no output that could quote a hidden test -------------------
