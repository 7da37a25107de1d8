"""Caps on what a grading kernel's output may be, as it arrives.

:class:`OutputCaps` is the part of
:class:`~autograder.grading.chain.execute.GradingExecute` that counts output:
every IOPub message but ``status`` and ``execute_input`` counts (comms,
display updates once per output they replace, unknown types); past
``max_output_bytes`` the rest is dropped (an update replaces nothing, a comm
never reaches the notebook) and a note says so; a test cell's results (up to
``max_results_bytes``) and its error, kept short, are never dropped for output
that came before them.
"""

from __future__ import annotations

import json

from nbformat import NotebookNode

from autograder.lessons.conventions import is_test
from course.results import MIME

#: IOPub messages that are kernel bookkeeping, not output: never counted.
BOOKKEEPING = ("status", "execute_input")
_DISPLAYS = ("display_data", "execute_result", "update_display_data")


def _message_bytes(msg: dict) -> int:
    size = len(json.dumps(msg.get("content", {}), default=str))
    for buffer in msg.get("buffers") or []:
        try:
            size += memoryview(buffer).nbytes
        except TypeError:
            size += len(str(buffer))
    return size


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(
        output_type="error",
        ename=ename,
        evalue=evalue,
        traceback=[f"{ename}: {evalue}"],
    )


class OutputCaps:
    """Output counting for an nbclient executor with ``max_output_bytes`` and
    ``max_results_bytes`` traits (see the module)."""

    def reset_counts(self) -> None:
        """Start counting a notebook's output afresh."""
        self._bytes = 0
        self._truncated = False
        self._results: dict[int, int] = {}  # results bytes per test cell
        self._errors: set[int] = set()  # test cells given a short error past the cap

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int):
        kind = msg.get("msg_type")
        if kind in BOOKKEEPING:
            return super().process_message(msg, cell, cell_index)
        content = msg.get("content")
        if not isinstance(content, dict):
            return None
        size = _message_bytes(msg)
        display_id = self._display_id(content)
        data = content.get("data")
        results = kind == "display_data" and isinstance(data, dict) and MIME in data
        if results and is_test(cell) and display_id is None:
            # A test's results never lose their place to earlier output, but a
            # test cell's results past max_results_bytes are refused (it fails).
            sent = self._results.get(cell_index, 0) + size
            self._results[cell_index] = sent
            if sent > self.max_results_bytes:
                cell.outputs.append(
                    NotebookNode(
                        output_type="stream",
                        name="stdout",
                        text=f"[results of {size:,} bytes refused: the limit is "
                        f"{self.max_results_bytes:,} per test cell]\n",
                    )
                )
                return None
            return super().process_message(msg, cell, cell_index)
        self._bytes += size * self._copies(kind, display_id)
        if self._bytes <= self.max_output_bytes:
            return super().process_message(msg, cell, cell_index)
        if not self._truncated:
            self._truncated = True
            cell.outputs.append(
                NotebookNode(
                    output_type="stream",
                    name="stdout",
                    text=f"[output beyond {self.max_output_bytes:,} bytes per "
                    "notebook dropped, widgets and display updates included]\n",
                )
            )
        if kind == "error" and is_test(cell) and cell_index not in self._errors:
            # The verdict quotes a test's error: keep it, short, once per cell.
            self._errors.add(cell_index)
            ename = str(content.get("ename", "Error"))[:80]
            evalue = str(content.get("evalue", ""))[:1000]
            cell.outputs.append(error_output(ename, evalue))
        return None

    @staticmethod
    def _display_id(content: dict) -> str | None:
        transient = content.get("transient")
        found = transient.get("display_id") if isinstance(transient, dict) else None
        if transient is not None and not isinstance(found, str):
            content["transient"] = {}  # nbclient fails on an id it cannot hash
            return None
        return found or None

    def _copies(self, kind: str | None, display_id: str | None) -> int:
        """How many outputs a message writes: a display with an id also replaces
        every earlier output with that id (nbclient updates them in place)."""
        if display_id is None or kind not in _DISPLAYS:
            return 1
        targets = sum(len(v) for v in self._display_id_map.get(display_id, {}).values())
        return max(1, targets + (kind != "update_display_data"))
