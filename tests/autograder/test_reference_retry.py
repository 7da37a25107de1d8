"""The reference run survives a kernel that died before it ran a line (a fork
under heavy load): as a grading job does, it runs once more, cold."""

from __future__ import annotations

import nbformat
import pytest

from autograder.grading import reference
from autograder.grading.kernel.forked import KERNEL_START_FAILED


@pytest.mark.slow
def test_a_kernel_dead_at_start_is_started_again_cold(monkeypatch):
    from nbclient import NotebookClient

    real, managers = NotebookClient.execute, []

    def execute(self, **kw):
        managers.append(self.kernel_manager_class)
        if len(managers) == 1:
            raise RuntimeError(KERNEL_START_FAILED)
        return real(self, **kw)

    monkeypatch.setattr(NotebookClient, "execute", execute)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    reference.execute_solution(nb)
    assert len(managers) == 2
    assert nb.cells[0].outputs[0]["text"] == "42\n"


def test_any_other_failure_is_raised(monkeypatch):
    from nbclient import NotebookClient

    def execute(self, **kw):
        raise RuntimeError("something else")

    monkeypatch.setattr(NotebookClient, "execute", execute)
    with pytest.raises(RuntimeError, match="something else"):
        reference.execute_solution(nbformat.v4.new_notebook())
