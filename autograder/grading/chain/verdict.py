"""The verdict: each test cell passes or fails, decided in the grader's process.

:class:`Verdict` (after ``LimitOutput``, before ``SaveAutoGrades``) rewrites
the outputs of every test cell into exactly one: a pass, or an error that says
what to fix. So stray stderr or a warning no longer zero a cell, and a number
shown as the cell's value earns no partial credit.

Every test, visible or hidden, is judged on its record from the measured run
(:mod:`autograder.grading.chain.measured`): the test ran there, in a kernel that holds
only the answer's definitions, to its end; it changed none of the measuring
hooks; every check it made passed; and the values its checks saw, and a hidden
test's results, equal the reference's (:mod:`autograder.grading.compare`,
:func:`autograder.grading.reference.measured_reference`). What the student's own kernel
reported about a test cell counts for nothing.

The verdicts also go into the notebook's ``course`` metadata for reports.
"""

from __future__ import annotations

import time
from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum

from autograder.grading.chain.reassemble import META
from autograder.grading.compare import DEFAULT_POLICY, POLICIES
from autograder.lessons.conventions import grade_id, is_test

PASSED = "Test passed."


class Verdict(NbGraderPreprocessor):
    """Rewrite every test cell's outputs into one pass or fail (see the module)."""

    hidden_feedback = Enum(
        POLICIES,
        default_value=DEFAULT_POLICY,
        help="What a failed hidden test tells the student: 'pass-fail' (only that "
        "it failed), 'message' (what differs and where, never a reference value) "
        "or 'values' (the reference's values too).",
    ).tag(config=True)

    def preprocess(self, nb: Any, resources: Any):
        from autograder.grading.chain.measured import collect, judge, untag
        from autograder.grading.reference import measured_reference

        measured = collect(resources)  # the kernel compiles come before the clock
        start = time.perf_counter()
        assignment = resources.get("nbgrader", {}).get("assignment", "")
        references = measured_reference(assignment) if measured is not None else {}
        refused = (measured or {}).get("refused") or {}
        note = "; ".join(
            f"your answer cell {gid} was not loaded: {problems[0]}"
            for gid, problems in refused.items()
        )
        verdicts: dict[str, dict[str, Any]] = {}
        for cell in nb.cells:
            gid = grade_id(cell)
            if not gid or not is_test(cell):
                continue
            untag(cell)
            if measured is None:
                message = (
                    "not graded: the measured run is missing from the grading chain "
                    "(MeasuredRun in Autograde.autograde_preprocessors)"
                )
            elif gid not in references:
                message = "this test has no reference record: regrade after release"
            else:
                message = judge(
                    measured["records"].get(gid), references[gid], self.hidden_feedback
                )
            if message.startswith("NameError") and note:
                message = f"{note}. {message}"
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
