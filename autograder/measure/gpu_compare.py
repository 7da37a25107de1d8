"""Compare the hidden tests' results from a GPU run with the CPU reference.

``course gpu-check`` runs every lesson as a plain script on a GPU machine, and
each hidden test's results land, in order, in ``results/NN_topic.jsonl``. That
machine has no Jupyter, so the results cannot be judged there. Back on a
machine with the course installed, ``course gpu-compare DIR`` pairs each line
with its hidden test (the order of the test cells in the lesson) and compares
it with the reference results computed here, on the CPU, with the grader's own
:func:`autograder.grading.compare.compare_results`.

The only differences allowed are where the values live: a lesson puts its
arrays on the GPU when it has one, so device names (``cuda:0`` against
``cpu``) and array kinds (CuPy against NumPy) are made the same before
comparing. Values, shapes, dtypes and exceptions must match within the
grader's tolerances: a lesson is GPU-correct when every hidden test's results
do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autograder.grading.compare import compare_results
from autograder.grading.reference import reference_results


def host_view(node: Any) -> Any:
    """``node`` with every device name made ``cpu`` and device arrays NumPy's."""
    if isinstance(node, list):
        return [host_view(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: host_view(value) for key, value in node.items()}
    if out.get("t") == "device":
        out["v"] = "cpu"
    if out.get("t") == "array":
        if out.get("kind") == "device":
            out["kind"] = "numpy"
        if out.get("device") not in (None, "meta"):
            out["device"] = "cpu"
    return out


def compare_lesson(lesson: str, log_file: Path) -> dict[str, list[str]]:
    """``{grade_id: problems}`` for one lesson's GPU results (empty: all match)."""
    want = reference_results(lesson)
    lines = [line for line in log_file.read_text(encoding="utf-8").splitlines() if line]
    if len(lines) != len(want):
        return {
            "(all)": [
                f"{len(lines)} results were logged, the lesson has "
                f"{len(want)} hidden tests"
            ]
        }
    problems = {}
    for (grade_id, reference), line in zip(want.items(), lines, strict=True):
        got = json.loads(line)["results"]
        problems[grade_id] = compare_results(host_view(reference), host_view(got))
    return problems


def compare_run(folder: Path) -> dict[str, dict[str, list[str]]]:
    """Every lesson whose results ``folder/results/`` holds."""
    logs = sorted((Path(folder) / "results").glob("*.jsonl"))
    if not logs:
        raise FileNotFoundError(
            f"{folder}/results holds no *.jsonl: is it a `course gpu-check` folder?"
        )
    return {log.stem: compare_lesson(log.stem, log) for log in logs}


def report(outcome: dict[str, dict[str, list[str]]]) -> str:
    """One line per lesson, and each mismatch under it."""
    lines = []
    for lesson, tests in outcome.items():
        bad = {gid: msgs for gid, msgs in tests.items() if msgs}
        lines.append(
            f"{lesson:<24} {len(tests) - len(bad)}/{len(tests)} hidden tests "
            "match the CPU reference"
        )
        for gid, msgs in bad.items():
            lines.extend(f"    {gid}: {msg}" for msg in msgs)
    return "\n".join(lines)
