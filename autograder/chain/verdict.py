"""The verdict: each test cell passes or fails, decided in the grader's process.

Two steps of the grading chain:

* :class:`SealTests` (last of ``Autograde.sanitize_preprocessors``) writes a
  nonce into every hidden test, right after its ``BEGIN HIDDEN TESTS`` line.
  The nonce is an HMAC of the notebook and the test's ``grade_id`` under a key
  that lives only in this process; :func:`course.results.submit` copies it into
  the results it sends.
* :class:`Verdict` (after ``LimitOutput``, before ``SaveAutoGrades``) rewrites
  the outputs of every test cell into exactly one: a pass, or an error that
  says what to fix. So stray stderr or a warning no longer zero a cell, and a
  number shown as the cell's value earns no partial credit.

  - A **hidden test** passes when its cell finished, and exactly one results
    output carries the cell's nonce, and those results equal the reference's
    (:mod:`autograder.compare`, :mod:`autograder.reference`). Results with
    another nonce, or none, are ignored: only what the test cell itself sent
    counts. Forging a pass means producing the reference's values, which is the
    task itself.
  - A **visible test** passes when its cell finished without an error, as the
    kernel reported it. That is decided inside the student's kernel, so it is
    the weaker guarantee (README: "What is and is not guaranteed"); so are the
    in-kernel checks hidden tests still make (sync counts, hooks, copies).

The verdicts also go into the notebook's ``course`` metadata for reports.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import time
from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.chain.execute import RESOURCES_KEY
from autograder.chain.reassemble import META
from autograder.compare import compare_results
from autograder.conventions import grade_id, has_hidden_tests, hidden_markers, is_test
from course.results import MIME, NONCE_NAME, VERSION

_KEY = os.urandom(32)  # this process only: a kernel cannot learn it
PASSED = "Test passed."


def _begin() -> re.Pattern[str]:
    """The line that opens a hidden-test block."""
    marker = re.escape(hidden_markers()[0])
    return re.compile(rf"^([ \t]*)### {marker}[^\n]*\n", re.MULTILINE)


def nonce(resources: Any, gid: str) -> str:
    """The nonce of test ``gid`` in the notebook being graded."""
    info = resources.get("nbgrader", {})
    text = "/".join(
        [str(info.get(k)) for k in ("assignment", "student", "notebook")] + [gid]
    )
    return hmac.new(_KEY, text.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


class SealTests(NbGraderPreprocessor):
    """Put each hidden test's nonce into its source (see the module)."""

    def preprocess_cell(self, cell: Any, resources: Any, index: int):
        gid = grade_id(cell)
        if gid and is_test(cell) and _begin().search(cell.source):
            line = f"{NONCE_NAME} = {nonce(resources, gid)!r}\n"
            cell.source = _begin().sub(
                lambda m: m.group(0) + m.group(1) + line, cell.source, count=1
            )
        return cell, resources


def _error_text(cell: Any) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    return "the cell did not finish"


def _own_results(cell: Any, expected_nonce: str) -> tuple[list[Any], int]:
    """Results outputs of this cell carrying its nonce; and how many did not."""
    mine, others = [], 0
    for output in cell.get("outputs", []):
        data = output.get("data")
        if not isinstance(data, dict) or MIME not in data:
            continue
        payload = data[MIME]
        if (
            isinstance(payload, dict)
            and payload.get("version") == VERSION
            and isinstance(payload.get("nonce"), str)
            and hmac.compare_digest(payload["nonce"], expected_nonce)
        ):
            mine.append(payload.get("results"))
        else:
            others += 1
    return mine, others


def judge_hidden(cell: Any, status: str | None, reference: Any, seal: str) -> str:
    """Empty string if a hidden test passes, else the message for the student."""
    if status != "ok":
        return _error_text(cell)
    mine, _ = _own_results(cell, seal)
    if not mine:
        return (
            "the test sent no results: it did not reach its end (did a function "
            "you wrote print, exit or interfere with the test?)"
        )
    if len(mine) > 1:
        return "the test sent its results more than once"
    problems = compare_results(reference, mine[0])
    if problems:
        return "results differ from the reference: " + "; ".join(problems)
    return ""


class Verdict(NbGraderPreprocessor):
    """Rewrite every test cell's outputs into one pass or fail (see the module)."""

    def preprocess(self, nb: Any, resources: Any):
        from autograder.reference import reference_results

        start = time.perf_counter()
        assignment = resources.get("nbgrader", {}).get("assignment", "")
        status = resources.get(RESOURCES_KEY, {}).get("status", {})
        references = None
        verdicts: dict[str, dict[str, Any]] = {}
        for cell in nb.cells:
            gid = grade_id(cell)
            if not gid or not is_test(cell):
                continue
            hidden = has_hidden_tests(cell.source)
            if hidden and references is None:
                references = reference_results(assignment)
            if hidden and gid in references:
                message = judge_hidden(
                    cell,
                    status.get(cell.get("id")),
                    references[gid],
                    nonce(resources, gid),
                )
            elif status.get(cell.get("id")) == "ok":
                message = ""
            else:
                message = _error_text(cell)
            verdicts[gid] = {"passed": not message, "message": message[:1000]}
            cell.outputs = [self._output(message)]
        found = nb.metadata.setdefault(META, {})
        found["verdicts"] = verdicts
        found["verdict_seconds"] = round(time.perf_counter() - start, 6)
        return nb, resources

    @staticmethod
    def _output(message: str) -> NotebookNode:
        if not message:
            return NotebookNode(output_type="stream", name="stdout", text=PASSED + "\n")
        ename, _, evalue = message.partition(": ")
        if not evalue or " " in ename:
            ename, evalue = "TestFailed", message
        return NotebookNode(
            output_type="error",
            ename=ename[:80],
            evalue=evalue[:1000],
            traceback=[f"{ename[:80]}: {evalue[:1000]}"],
        )
