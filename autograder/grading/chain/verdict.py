"""The verdict: each test cell passes or fails, decided in the grader's process.

:class:`Verdict` (after ``LimitOutput``, before ``SaveAutoGrades``) rewrites
the outputs of every test cell into exactly one: a pass, or an error that says
what to fix. So stray stderr or a warning no longer zero a cell, and a number
shown as the cell's value earns no partial credit.

Every test, visible or hidden, is judged on its record from the referee
(:mod:`autograder.grading.chain.referee`): the test ran to its end there; every
check it made passed; and the values its checks saw, and a hidden test's
results, equal the reference's (:mod:`autograder.grading.compare`,
:func:`autograder.grading.reference.measured_reference`), compared here. What
the student's kernel printed about a test cell counts for nothing.

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
from autograder.lessons.conventions import grade_id, is_test, skipped_at_grading
from course.i18n import _, say

PASSED = "Test passed."
#: The output a lesson cell too slow for grading gets on the feedback page.
SKIPPED_NOTE = NotebookNode(
    output_type="stream",
    name="stdout",
    text="(Not run while grading: this demonstration takes long and decides no "
    "points. It runs in your own notebook.)\n",
)


def _judged(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """One check judged again here: the values it saw, with the reference's
    tolerances (a check's expected value may come from the student's own
    earlier answers, as the test wrote it)."""
    from autograder.grading.compare import VALUES, compare_results

    if "expected" not in got or "actual" not in got:
        return [say("{check}: no values to judge", check=want.get("c"))]
    expected = got["expected"]
    if want.get("c") == "check_close":
        expected = {
            "t": "approx",
            "v": expected,
            "strict": False,
            "rtol": _number(want.get("rtol"), 1e-5),
            "atol": _number(want.get("atol"), 1e-8),
        }
    return compare_results(expected, got["actual"], reveal=VALUES)  # visible anyway


def _number(node: Any, default: float) -> float:
    try:
        return float(node["v"])
    except (TypeError, KeyError, ValueError):
        return default


def _check_problems(want: list[Any], got: list[Any]) -> list[str]:
    if len(got) != len(want):
        return [
            say(
                "the test made {got} checks where the reference made {want}",
                got=len(got),
                want=len(want),
            )
        ]
    problems = []
    for i, (w, g) in enumerate(zip(want, got)):
        if not isinstance(g, dict) or g.get("c") != w.get("c") or not g.get("ok"):
            return [say("check {n} ({check}) did not pass", n=i + 1, check=w.get("c"))]
        if "expected" in w:
            problems += _judged(w, g)
    return problems


def judge(
    record: dict[str, Any] | None,
    reference: dict[str, Any],
    reveal: str = DEFAULT_POLICY,
) -> str:
    """Empty if a test passes, else the message for the student.

    ``reveal`` is the hidden-feedback policy for a hidden test's results
    (:data:`autograder.grading.compare.POLICIES`); a visible test's checks are
    judged on values the student's own run shows anyway."""
    from autograder.grading.compare import compare_results

    if not isinstance(record, dict):
        return _(
            "this test did not run: the kernel died or ran out of time in an "
            "earlier cell"
        )
    if record.get("error"):
        return str(record["error"])
    want_checks = reference.get("checks") or []
    want_results = reference.get("results") or []
    if not want_checks and not want_results:
        return _("this test has nothing the grader can judge (no checks, no results)")
    problems = _check_problems(want_checks, record.get("checks") or [])
    if want_results:
        got = record.get("results") or []
        if len(got) != 1:
            problems.append(
                _("the test sent no results")
                if not got
                else _("the test sent its results more than once")
            )
        else:
            problems += compare_results(want_results[0], got[0], reveal=reveal)
    if problems:
        return say(
            "results differ from the reference: {problems}",
            problems="; ".join(problems[:3]),
        )
    return ""


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
        from autograder.grading.chain.kernels import compile_launches
        from autograder.grading.chain.referee import collect, untag
        from autograder.grading.reference import measured_reference
        from autograder.grading.result_nodes import clip

        records = collect(resources)
        if records is not None:  # the kernel compiles come before the clock
            compile_launches(records)
        start = time.perf_counter()
        assignment = resources.get("nbgrader", {}).get("assignment", "")
        release = resources.get("course_release") or assignment  # the job's rules
        references = measured_reference(release) if records is not None else {}
        verdicts: dict[str, dict[str, Any]] = {}
        for cell in nb.cells:
            if skipped_at_grading(cell):
                untag(cell)
                cell.outputs = [NotebookNode(SKIPPED_NOTE)]
                continue
            gid = grade_id(cell)
            if not gid or not is_test(cell):
                continue
            untag(cell)
            if records is None:
                message = (
                    "not graded: the referee is missing from the grading chain "
                    "(Referee in Autograde.autograde_preprocessors)"
                )
            elif gid not in references:
                message = "this test has no reference record: regrade after release"
            else:
                message = judge(records.get(gid), references[gid], self.hidden_feedback)
            verdicts[gid] = {"passed": not message, "message": clip(message, 1000)}
            cell.outputs = [self._output(message)]
        found = nb.metadata.setdefault(META, {})
        found["verdicts"] = verdicts
        found["verdict_seconds"] = round(time.perf_counter() - start, 6)
        return nb, resources

    @staticmethod
    def _output(message: str) -> NotebookNode:
        if not message:
            return NotebookNode(output_type="stream", name="stdout", text=PASSED + "\n")
        from autograder.grading.result_nodes import clip

        ename, _, evalue = message.partition(": ")
        if not evalue or " " in ename or len(ename) > 80:
            ename, evalue = "TestFailed", message
        evalue = clip(evalue, 1000)
        return NotebookNode(
            output_type="error",
            ename=ename,
            evalue=evalue,
            traceback=[f"{ename}: {evalue}"],
        )
