"""The measured run and the notebook share one kernel, and nothing else.

``GradingExecute`` runs the cell handed over as ``FIRST_CELL`` (the measured
run) before the notebook's cells, in the same kernel: one kernel start per
graded notebook instead of two. These tests hold what the notebook's cells must
still see: no name, history number or output allowance used by the first cell;
a fresh kernel when the first cell ended its own; the guard installed twice
without wrapping itself.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.grading.chain.execute import (
    FIRST_CELL,
    FIRST_OUTPUTS,
    RESOURCES_KEY,
    GradingExecute,
)
from autograder.grading.chain.measured import measured_cell
from autograder.grading.kernel import warmkernel

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not warmkernel.supported(), reason="warm kernels: Linux only"),
]


def _notebook(*sources: str) -> nbformat.NotebookNode:
    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _first(source: str, cells: int = 1) -> dict:
    cell = new_code_cell(source)
    cell.id = "first"
    return {"cell": cell, "cells": cells}


def _run(nb, first, tmp_path, **traits):
    traits.setdefault("timeout", 30)
    resources = {"metadata": {"path": str(tmp_path)}, RESOURCES_KEY: {}}
    if first is not None:
        resources[RESOURCES_KEY][FIRST_CELL] = first
    before = warmkernel.LAUNCHED["warm"] + warmkernel.LAUNCHED["cold"]
    executor = GradingExecute(warm=True, confine=False, **traits)
    nb, resources = executor.preprocess(nb, resources)
    started = warmkernel.LAUNCHED["warm"] + warmkernel.LAUNCHED["cold"] - before
    return nb, resources[RESOURCES_KEY], started


def _text(outputs) -> str:
    return "".join(o.get("text", "") or o.get("evalue", "") for o in outputs)


def test_the_first_cell_runs_first_in_the_notebooks_kernel_and_leaves_it(tmp_path):
    nb = _notebook(
        "import os\nprint(os.getpid(), FIRST_PID)",
        "print(sorted(n for n in globals() if 'secret' in n), len(In))",
    )
    first = _first(
        "import builtins, os\nsecret = 1\n"
        "builtins.FIRST_PID = os.getpid()\nprint('first ran')"
    )
    nb, info, started = _run(nb, first, tmp_path)
    assert started == 1  # one kernel for both
    assert _text(info[FIRST_OUTPUTS]) == "first ran\n"
    assert len(nb.cells) == 2  # the first cell left the notebook
    pid, first_pid = nb.cells[0].outputs[0]["text"].split()
    assert pid == first_pid
    assert nb.cells[0].execution_count == 1  # not in the kernel's history
    # a name the first cell bound in the kernel's namespace is still there (the
    # measured run binds none: test_the_harness_binds_no_name_in_the_kernel)
    assert nb.cells[1].outputs[0]["text"] == "['secret'] 3\n"
    assert "first" not in info["status"]


def test_the_harness_binds_no_name_in_the_kernel(tmp_path):
    """The notebook sees the names it would see in a kernel of its own."""
    program = {"nonce": "n", "timeout": 10, "units": []}
    names = "print(sorted(globals()))"
    alone, _, _ = _run(_notebook(names), None, tmp_path)
    first = {"cell": measured_cell(program), "cells": 1}
    after, _, _ = _run(_notebook(names), first, tmp_path)
    assert "'In'" in alone.cells[0].outputs[0]["text"]
    assert after.cells[0].outputs[0]["text"] == alone.cells[0].outputs[0]["text"]


def test_a_first_cell_that_ends_its_kernel_leaves_the_notebook_a_fresh_one(tmp_path):
    nb = _notebook("print('notebook ran')")
    first = _first("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    nb, info, started = _run(nb, first, tmp_path)
    assert started == 2
    assert any(o.get("ename") == "KernelDied" for o in info[FIRST_OUTPUTS])
    assert _text(nb.cells[0].outputs) == "notebook ran\n"
    assert info["died_in"] is None


def test_the_first_cells_output_and_time_are_its_own(tmp_path):
    """Its output does not count toward the notebook's cap, and it may take
    a cell's time per test it runs."""
    nb = _notebook("print('x' * 500)")
    first = _first("import time\ntime.sleep(1.5)\nprint('y' * 800)", cells=2)
    nb, info, _ = _run(nb, first, tmp_path, timeout=1, max_output_bytes=1000)
    assert _text(info[FIRST_OUTPUTS]) == "y" * 800 + "\n"
    assert _text(nb.cells[0].outputs) == "x" * 500 + "\n"


def test_the_notebooks_guard_install_keeps_the_first_ones_originals(tmp_path):
    install = "__import__('autograder.grading.guard').grading.guard.install()"
    nb = _notebook(
        f"{install}\nimport os\n"
        "try:\n    os.kill(2**22 + 12345, 0)\nexcept ProcessLookupError:\n"
        "    print('a plain kill')\n"
        "try:\n    os._exit(0)\nexcept SystemExit as e:\n    print(e)"
    )
    nb, info, _ = _run(nb, _first(install), tmp_path)
    assert _text(nb.cells[0].outputs) == (
        "a plain kill\nleaving the kernel is disabled while grading\n"
    )


def test_without_a_first_cell_nothing_changes(tmp_path):
    nb, info, started = _run(_notebook("print(1)"), None, tmp_path)
    assert started == 1 and FIRST_OUTPUTS not in info
    assert _text(nb.cells[0].outputs) == "1\n"


def test_a_later_cell_cannot_change_the_first_cells_outputs(tmp_path):
    """A display the first cell made with an id is updated in place by nbclient
    when a later cell updates that id: the outputs handed back are those the
    first cell had when it ended."""
    first = _first("handle = display('measured', display_id='shared')")
    nb = _notebook(
        "from IPython.display import update_display\n"
        "update_display('forged', display_id='shared')"
    )
    nb, info, _ = _run(nb, first, tmp_path)
    shown = [o["data"]["text/plain"] for o in info[FIRST_OUTPUTS]]
    assert shown == ["'measured'"]
