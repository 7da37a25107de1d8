"""The delegation probe: the student library must not answer a graded task.

A student could call a ``course`` helper instead of writing a task, so no
helper may reproduce a task's hidden test. The probe runs the lesson's
solution, hidden tests included, in a kernel of its own where each task's
functions are watched (:mod:`autograder.publish.probe_watch`): while the task's hidden
test runs, every call of them is also made to every public function and class
of every ``course`` module, with the task's own inputs, and the helper's
result, and each attribute or item of it, is compared with the reference's.
Each helper that agrees on every call then stands in for the function while
the hidden test runs again, and the results that test sends are compared with
the reference's (:func:`autograder.grading.reference.reference_results`,
:func:`autograder.grading.compare.compare_results`): equal results fail the release.
One kernel run per lesson, whatever the number of helpers.

:data:`HELPERS` names, for some tasks, the helper that comes closest to doing
the task's job. Those are also graded through nbgrader, imported over the
task's function as a delegating student would, and so is any candidate whose
second run could not be trusted (the hidden test, run again with the reference
itself, did not give the reference's results); a hidden test that gives any of
them points fails the release too. ``course release`` probes every lesson.
"""

from __future__ import annotations

import ast
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.lessons import find_lesson, source_to_notebook, write_notebook
from autograder.lessons.conventions import grade_id, is_answer
from autograder.publish.probe_watch import MIME, NAME


class DelegationError(RuntimeError):
    """A course helper reproduces a hidden test: the library gives a task away."""

    def __init__(self, message: str, report: ProbeReport | None = None) -> None:
        super().__init__(message)
        self.report = report


class ProbeError(RuntimeError):
    """The probe could not run: its kernel failed outside the lesson's own code."""


#: Per lesson: ``{answer grade_id: import line}`` of the closest course helper.
HELPERS: dict[str, dict[str, str]] = {
    "01_devices": {
        "01-pick-device": "from course.devices import pick_device",
    },
    "02_migration": {
        "02-to-device": "from course.fakecupy import to_device",
    },
    "05_numpy_to_cupy": {
        "05-to-numpy": "from course.backend import host_copy as to_numpy",
    },
}
HIDDEN = "-hidden-test"


@dataclass
class ProbeReport:
    """What the probe of one lesson tried; it found no delegation."""

    lesson: str
    helpers: int = 0
    """Public ``course`` functions and classes tried."""
    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per task, per function: the hidden test's calls helpers were tried on
    (until every helper but those rerun disagreed)."""
    rerun: dict[str, list[str]] = field(default_factory=dict)
    """Per task: the helpers that agreed on every call, so the hidden test ran
    again with them; its results differed from the reference's."""
    graded: dict[str, float] = field(default_factory=dict)
    """``"task: helper"``: the points a graded hidden test gave (none)."""
    seconds: float = 0.0

    def __str__(self) -> str:
        return (
            f"{self.helpers} course helpers tried on {len(self.calls)} task(s), "
            f"{sum(map(len, self.rerun.values()))} rerun, {len(self.graded)} "
            f"graded, {self.seconds:.0f} s"
        )


def helpers(lesson: str) -> dict[str, str]:
    """``{answer grade_id: import line}`` declared for a lesson."""
    return dict(HELPERS.get(find_lesson(lesson).stem, {}))


def task_functions(source: str) -> list[str]:
    """The functions an answer cell defines at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return re.findall(r"^def (\w+)", source, re.MULTILINE)
    return [
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def probe_notebook(lesson: str, code: dict[str, str] | None = None) -> Any:
    """The reference notebook with ``code[grade_id]`` appended to each answer
    cell: by default every declared helper imported over its task."""
    code = helpers(lesson) if code is None else code
    nb = source_to_notebook(find_lesson(lesson))
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in code:
            cell.source = cell.source.rstrip() + "\n\n" + code[gid] + "\n"
    return nb


def _cell(source: str, cell_id: str) -> Any:
    import nbformat

    cell = nbformat.v4.new_code_cell(source)
    cell["id"] = cell_id[:64]
    return cell


def watch_notebook(lesson: str, setup: str = "") -> Any:
    """The reference notebook with every task's functions watched (see the
    module); ``setup`` runs first (tests plant helpers with it)."""
    nb = source_to_notebook(find_lesson(lesson))
    ids = {grade_id(c) for c in nb.cells}
    start = f"import autograder.publish.probe_watch\n{setup}\n"
    cells = [
        _cell(f"{start}{NAME} = autograder.publish.probe_watch.Watch()", "probe-setup")
    ]
    watched: set[str] = set()
    for cell in nb.cells:
        gid = grade_id(cell) or ""
        task = gid.removesuffix(HIDDEN)
        if gid.endswith(HIDDEN) and task in watched:
            cells.append(_cell(f"{NAME}.enter({task!r})", f"probe-enter-{task}"))
            cells.append(cell)
            leave = f"{NAME}.leave(globals(), {task!r}, {gid!r}, {cell.source!r})"
            cells.append(_cell(leave, f"probe-leave-{task}"))
            continue
        cells.append(cell)
        if gid + HIDDEN in ids and is_answer(cell) and cell.cell_type == "code":
            watched.add(gid)
            names = task_functions(cell.source)
            wrap = f"{NAME}.wrap(globals(), {gid!r}, {names!r})"
            cells.append(_cell(wrap, f"probe-wrap-{gid}"))
    nb.cells = cells
    return nb


def watch(lesson: str, setup: str = "") -> list[dict[str, Any]]:
    """Run :func:`watch_notebook`; return each watched hidden test's findings.

    Raises:
        ProbeError: a cell the probe added failed, or the kernel died.
    """
    from nbclient.exceptions import DeadKernelError

    from autograder.grading.reference import execute_solution

    nb = watch_notebook(lesson, setup)
    try:
        execute_solution(nb, prefix="course-probe-")
    except DeadKernelError as exc:
        raise ProbeError(f"{lesson}: the probe's kernel died: {exc}") from None
    found = []
    for cell in nb.cells:
        if not str(cell.get("id", "")).startswith("probe-"):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                raise ProbeError(
                    f"{lesson}, {cell['id']}: {output.get('ename')}: "
                    f"{output.get('evalue')}"
                )
            if MIME in output.get("data", {}):
                found.append(output["data"][MIME])
    return found


def run_probe(lesson: str, *, setup: str = "") -> ProbeReport:
    """Probe a lesson; return what was tried (see the module).

    Raises:
        DelegationError: a course helper, or an attribute or item of its result,
            reproduces a task's hidden test; the message names both.
        ProbeError: the probe could not run.
    """
    from autograder.grading.compare import compare_results
    from autograder.grading.reference import reference_results

    start = time.perf_counter()
    name = find_lesson(lesson).stem
    reference = reference_results(name)
    report = ProbeReport(name)
    found: list[str] = []
    graded = {gid: [(repr(line), line)] for gid, line in helpers(name).items()}
    for entry in watch(name, setup):
        task, want = entry["task"], reference.get(entry["test"])
        report.helpers = entry["helpers"]
        report.calls[task] = entry["calls"]
        control = (entry.get("control") or {}).get("results")
        trusted = control is not None and not compare_results(want, control)
        for tried in entry["candidates"]:
            label = f"{tried['helper']}(...){tried['path']}"
            if len(entry["calls"]) > 1:
                label += f" as {tried['function']}"
            if not trusted:
                graded.setdefault(task, []).append((label, f"{setup}\n{tried['code']}"))
            elif tried["results"] is not None and not compare_results(
                want, tried["results"]
            ):
                found.append(
                    f"{task}: {label} reproduces the reference; a student could "
                    "delegate the task to it"
                )
            else:
                report.rerun.setdefault(task, []).append(label)
    found += _grade(name, graded, report)
    report.seconds = time.perf_counter() - start
    if found:
        raise DelegationError("\n".join(found), report)
    return report


def _grade(lesson: str, graded: dict[str, list], report: ProbeReport) -> list[str]:
    """Grade each task with each ``(label, code)`` in turn appended to its answer
    cell: one nbgrader run per round, every task in each round."""
    from autograder.grading import grade_notebooks

    found = []
    for turn in range(max(map(len, graded.values()), default=0)):
        chosen = {t: ways[turn] for t, ways in graded.items() if turn < len(ways)}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "probe.ipynb"
            nb = probe_notebook(lesson, {t: code for t, (_, code) in chosen.items()})
            write_notebook(nb, path)
            (grade,) = grade_notebooks(lesson, {"probe": path})  # course grade's path
        for task, (label, _) in chosen.items():
            points = grade.per_question.get(task + HIDDEN, (0.0, 0.0))[0]
            report.graded[f"{task}: {label}"] = points
            if points > 0:
                found.append(
                    f"{task}: {label} earns {points:g} hidden-test point(s); a "
                    "student could delegate the task to it"
                )
    return found
