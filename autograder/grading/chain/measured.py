"""The measured run, grader side: every test runs where the answer cannot reach it.

:class:`MeasuredRun` (in ``Autograde.autograde_preprocessors``, before
:class:`~autograder.grading.chain.execute.GradingExecute`) builds the notebook's
measured program (:mod:`autograder.grading.measured`) and hands it to
``GradingExecute`` as the first cell its kernel runs: before any of the
notebook's own cells, so the program meets a fresh kernel (warm, confined and
capped like every grading kernel), exactly as the reference's did. Each test's
record is out of the kernel, sealed, before the notebook's cells run; they then
run in the same kernel *without* their test cells, to make the outputs the
student sees in feedback, and decide nothing. The harness puts back every hook
it set, so they run as in a kernel of their own; a program that ends its kernel
leaves the notebook a fresh one. (A kernel of its own for each, as before,
cost 0.17 s more a notebook.)

:func:`collect` (called by :class:`~autograder.grading.chain.verdict.Verdict`)
reads the records from that cell's outputs; :func:`judge` compares one test's
record with the reference's: the test passes when it ran to its end, changed
none of the measuring hooks, every check it made passed, and the values those
checks saw (and a hidden test's results) equal the reference's, compared here,
in the grader's process.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

from autograder.grading import harness
from autograder.grading.chain.execute import (
    FIRST_CELL,
    FIRST_OUTPUTS,
    RESOURCES_KEY,
    GradingExecute,
)
from autograder.grading.chain.reassemble import release_path
from autograder.grading.compare import DEFAULT_POLICY, VALUES, compare_results
from autograder.grading.measured import build
from autograder.lessons.conventions import is_test
from course.results import MIME

_KEY = os.urandom(32)  # this process only
#: The tag nbclient skips: test cells are not run in the main kernel.
SKIP_TAG = "skip-execution"
_CELL_ID = "measured-run"
_PENDING = "measured_pending"  # in resources: the program, until collected


def measured_nonce(info: dict[str, Any]) -> str:
    text = "/".join(str(info.get(k)) for k in ("assignment", "student", "notebook"))
    return hmac.new(_KEY, f"measured/{text}".encode(), hashlib.sha256).hexdigest()[:32]


def records_of(outputs: list[Any], seal: str | None) -> dict[str, Any]:
    """``{grade_id: record}`` from a measured kernel's outputs; a test that sent
    two records gets an ``error`` instead (only its own, sealed, count)."""
    found: dict[str, Any] = {}
    for output in outputs:
        data = output.get("data") if isinstance(output, dict) else None
        payload = data.get(MIME) if isinstance(data, dict) else None
        if not (isinstance(payload, dict) and payload.get("kind") == harness.KIND):
            continue
        if seal is not None and not (
            isinstance(payload.get("nonce"), str)
            and hmac.compare_digest(payload["nonce"], seal)
        ):
            continue
        record = payload.get("record")
        gid = record.get("gid") if isinstance(record, dict) else None
        if not isinstance(gid, str):
            continue
        if gid in found:
            found[gid] = {"gid": gid, "error": "the test sent its record twice"}
        else:
            found[gid] = record
    return found


def run_error(outputs: list[Any]) -> str | None:
    """The measured kernel's own error, if the run itself failed."""
    for output in outputs:
        if isinstance(output, dict) and output.get("output_type") == "error":
            return f"{output.get('ename')}: {output.get('evalue')}"[:500]
    return None


def measured_cell(program: dict[str, Any]) -> NotebookNode:
    """The cell that runs a measured program (a test cell worth 0 points, so
    its records count as a test's results against the output caps)."""
    cell = nbformat.v4.new_code_cell(harness.source(program))
    cell.id = _CELL_ID
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": _CELL_ID, "points": 0}
    return cell


def run_program(program: dict[str, Any], config: Any, resources: dict) -> list[Any]:
    """Run a measured program alone in a fresh grading kernel; return its outputs."""
    nb = nbformat.v4.new_notebook(cells=[])
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}  # fmt: skip
    run = dict(resources)
    run[RESOURCES_KEY] = {FIRST_CELL: _first(program)}
    GradingExecute(config=config).preprocess(nb, run)
    return run[RESOURCES_KEY].get(FIRST_OUTPUTS, [])


def _first(program: dict[str, Any]) -> dict[str, Any]:
    # The whole run is one cell: it may take a cell's time per test.
    tests = sum(u["kind"] == "test" for u in program["units"])
    return {"cell": measured_cell(program), "cells": tests}


class MeasuredRun(NbGraderPreprocessor):
    """Put the measured run first in the notebook's kernel (see the module);
    :func:`collect` reads its records once the kernel has run it."""

    unit_timeout = Integer(
        0, help="Seconds one unit (a test) may take there; 0: Execute's timeout."
    ).tag(config=True)

    def preprocess(self, nb: Any, resources: Any):
        info = resources.get("nbgrader", {})
        path = release_path(self.config, info.get("assignment"), info.get("notebook"))
        release = nbformat.read(path, as_version=4) if path.is_file() else nb
        program = build(nb, release)
        seal = measured_nonce(info)
        timeout = self.unit_timeout or int(self.config.GradingExecute.get("timeout", 0))
        found = resources.setdefault(RESOURCES_KEY, {})
        found.pop("measured", None)
        found[FIRST_CELL] = _first(program.to_json(seal, timeout or 120))
        found[_PENDING] = (program, seal)
        for cell in nb.cells:
            if is_test(cell):
                tags = cell.metadata.setdefault("tags", [])
                if SKIP_TAG not in tags:
                    tags.append(SKIP_TAG)
        return nb, resources


def collect(resources: dict) -> dict[str, Any] | None:
    """The measured run's records and refusals, once the kernel has run it
    (None: no measured run in this chain). A run that never happened (the
    notebook was too large to run) or stopped fails the tests it did not reach."""
    found = resources.get(RESOURCES_KEY, {})
    if "measured" in found or _PENDING not in found:
        return found.get("measured")
    program, seal = found.pop(_PENDING)
    outputs = found.get(FIRST_OUTPUTS)
    records = records_of(outputs or [], seal)
    stopped = run_error(outputs or [])
    if outputs is None:
        stopped = "the notebook was not run" + (
            " (it is too large)" if found.get("too_large") else ""
        )
    for gid in program.tests:
        if gid not in records and stopped:
            records[gid] = {"gid": gid, "error": f"the measured run stopped: {stopped}"}
    compile_answer_kernels(program, records)
    found["measured"] = {"records": records, "refused": program.refused}
    return found["measured"]


def _compile_source(program: Any) -> str:
    """What the compile process loads: the lesson's imports and literal
    constants that the answers read, then the answers' definitions (already
    under the rules). Nothing else: importing torch there would cost seconds."""
    import ast

    from autograder.grading.answer_rules import definition_only
    from autograder.grading.measured import binds, reads

    answers = [u["source"] for u in program.units if u["kind"] == "answer"]
    wanted = set().union(*(reads(ast.parse(a)) for a in answers)) if answers else set()
    lines = []
    for unit in program.units:
        if unit["kind"] != "lesson":
            continue
        for node in ast.parse(unit["source"]).body:
            if definition_only(node) and binds(node) & wanted:
                lines.append(ast.unparse(node))
    return "\n".join([*lines, *answers]) + "\n"


def compile_answer_kernels(program: Any, records: dict[str, Any]) -> None:
    """Compile, for real, every answer kernel the tests launched, for the types it
    was launched with; a kernel CUDA refuses fails every test that launched it.

    Kernels run in numba's CUDA simulator, which runs Python and so accepts what
    CUDA never would (``np.dot`` in a kernel, a list shared between threads).
    Compiling with numba-cuda's ``compile_ptx`` needs no GPU
    (:mod:`autograder.grading.cuda_compile`); where the compiler is missing, those tests
    earn nothing and say which wheels to install."""
    answers = set(program.answer_names)
    wanted: dict[str, list[str]] = {}
    for record in records.values():
        for kernel, signature in record.get("launches") or []:
            if kernel in answers and signature not in wanted.setdefault(kernel, []):
                wanted[kernel].append(signature)
    if not wanted:
        return
    from autograder.grading.cuda_compile import CompilerUnavailable, compile_kernels

    unsupported = {
        k: next(s for s in sigs if s.startswith("unsupported: "))
        for k, sigs in wanted.items()
        if any(s.startswith("unsupported: ") for s in sigs)
    }
    try:
        problems = compile_kernels(
            _compile_source(program),
            {k: [s for s in v if not s.startswith("unsupported: ")] for k, v in
             wanted.items()},
            remember=True,
        )  # fmt: skip
    except (CompilerUnavailable, RuntimeError) as exc:
        problems = {
            k: f"it could not be compiled for CUDA here ({exc})" for k in wanted
        }
    for kernel, why in unsupported.items():
        problems[kernel] = why.removeprefix("unsupported: ")
    for record in records.values():
        if record.get("error") or record.get("tampered"):
            continue
        for kernel, _ in record.get("launches") or []:
            if problems.get(kernel):
                record["error"] = (
                    f"your kernel {kernel} does not compile for a CUDA GPU (it ran "
                    f"only in the simulator): {problems[kernel]}"
                )
                break


def untag(cell: NotebookNode) -> None:
    """Take the skip tag :class:`MeasuredRun` put on a test cell off again."""
    tags = cell.get("metadata", {}).get("tags")
    if tags and SKIP_TAG in tags:
        tags.remove(SKIP_TAG)
        if not tags:
            del cell.metadata["tags"]


def _judged(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """One check judged again here: the values it saw in the measured run, with
    the reference's tolerances (a check's expected value may come from the
    student's own earlier answers, as the test wrote it)."""
    if "expected" not in got or "actual" not in got:
        return [f"{want.get('c')}: no values to judge"]
    expected = got["expected"]
    if want.get("c") == "check_close":
        expected = {
            "t": "approx",
            "v": expected,
            "rtol": _number(want.get("rtol"), 1e-5),
            "atol": _number(want.get("atol"), 1e-8),
            "strict": False,
        }
    return compare_results(expected, got["actual"], reveal=VALUES)  # visible anyway


def _number(node: Any, default: float) -> float:
    try:
        return float(node["v"])
    except (TypeError, KeyError, ValueError):
        return default


def _check_problems(want: list[Any], got: list[Any]) -> list[str]:
    if len(got) != len(want):
        return [f"the test made {len(got)} checks where the reference made {len(want)}"]
    problems = []
    for i, (w, g) in enumerate(zip(want, got)):
        if not isinstance(g, dict) or g.get("c") != w.get("c") or not g.get("ok"):
            return [f"check {i + 1} ({w.get('c')}) did not pass"]
        if "expected" in w:
            problems += _judged(w, g)
    return problems


def judge(
    record: dict[str, Any] | None,
    reference: dict[str, Any],
    reveal: str = DEFAULT_POLICY,
) -> str:
    """Empty if a test passes, else the message for the student (see the module).

    ``reveal`` is the hidden-feedback policy for a hidden test's results
    (:data:`autograder.grading.compare.POLICIES`); a visible test's checks are judged
    on values the student's own run shows anyway."""
    if not isinstance(record, dict):
        return (
            "this test did not run in the grader's measured run: the kernel died "
            "or ran out of time in an earlier test"
        )
    if record.get("tampered"):
        return (
            f"the measured run found that {record['tampered']}: code in your answer "
            "changed the course's checks or measuring tools, so this test earns no "
            "points"
        )
    if record.get("error"):
        return str(record["error"])
    want_checks = reference.get("checks") or []
    want_results = reference.get("results") or []
    if not want_checks and not want_results:
        return "this test has nothing the grader can judge (no checks, no results)"
    problems = _check_problems(want_checks, record.get("checks") or [])
    if want_results:
        got = record.get("results") or []
        if len(got) != 1:
            problems.append("the test sent no results" if not got else
                            "the test sent its results more than once")  # fmt: skip
        else:
            problems += compare_results(want_results[0], got[0], reveal=reveal)
    if problems:
        return "results differ from the reference: " + "; ".join(problems[:3])
    return ""


__all__ = ["MeasuredRun", "collect", "judge", "records_of", "run_program", "untag"]
