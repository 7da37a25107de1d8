"""The red-team suite: every attack in tests/redteam/ scores exactly as written.

All cases are graded in one batch with ``--jobs 2``, as a class would be,
with a secret in the grader's environment, a UDP listener and a UNIX socket
listener on this machine. Then: every expected score and zeroed cell holds,
the whole batch was graded, the scan listed what it must, no process a kernel
started survives, nothing reached the listeners, no file appeared outside the
output folder, and no feedback page holds hidden-test code or a script.
"""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from autograder.classgrade import grade_class
from autograder.grading.reference import cache_dir
from autograder.lessons import REPO_ROOT, lesson_sources, source_to_notebook
from autograder.lessons.conventions import grade_id, nbgrader_meta
from tests.once import once_per_run
from tests.redteam import load_cases, student, write_case

# The first test here grades every case once for the module (about 13 minutes
# on 2 cores, more when the machine is shared): longer than the suite's
# default limit, which is meant for one test's own work.
pytestmark = pytest.mark.timeout(2400)

CASES = load_cases()
MARKER = f"rt{uuid.uuid4().hex[:12]}"


@functools.lru_cache
def _points(lesson: str) -> dict[str, float]:
    source = next(p for p in lesson_sources() if p.stem == lesson)
    return {
        grade_id(c): float(nbgrader_meta(c)["points"])
        for c in source_to_notebook(source).cells
        if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")
    }


def _tree(root):
    return {
        str(p.relative_to(root)): p.stat().st_mtime_ns
        for p in root.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(root).parts[:-1])
        and p.relative_to(root).parts[0]
        not in {"screenshots", "bench-results", "gpu-check"}
        and "__pycache__" not in p.parts
    }


@dataclass(frozen=True)
class GradedAttacks:
    """The whole red-team batch, graded once, and what reached the outside."""

    report: Any
    received: list
    before: dict
    after: dict
    marker: str  # in every process a kernel started, and the grader's secret


@pytest.fixture(scope="session")
def redteam_graded(tmp_path_factory) -> GradedAttacks:
    """Graded once per test run (:func:`tests.once.once_per_run`)."""
    return once_per_run(tmp_path_factory, "redteam", lambda: _grade(tmp_path_factory))


def _grade(tmp_path_factory) -> GradedAttacks:
    folder = tmp_path_factory.mktemp("redteam")
    out = tmp_path_factory.mktemp("redteam-out")
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    unix_path = str(tmp_path_factory.mktemp("sock") / "service.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(unix_path)
    unix.listen(5)
    unix.setblocking(False)
    for case in CASES:
        write_case(
            case,
            folder,
            udp_port=str(udp.getsockname()[1]),
            unix_path=unix_path,
            marker=MARKER,
            cache_dir=str(cache_dir()),
        )
    before = _tree(REPO_ROOT)
    os.environ["COURSE_REDTEAM_SECRET"] = MARKER
    try:
        report = grade_class(folder, out_dir=out, jobs=2, progress=False)
    finally:
        del os.environ["COURSE_REDTEAM_SECRET"]
    received = []
    try:
        received.append(udp.recv(4096))
    except BlockingIOError:
        pass
    try:
        connection, _ = unix.accept()
        connection.close()
        received.append("a UNIX connection")
    except BlockingIOError:
        pass
    udp.close()
    unix.close()
    return GradedAttacks(report, received, before, _tree(REPO_ROOT), MARKER)


def test_the_suite_is_large_and_covers_the_lessons():
    assert len(CASES) >= 40
    assert {c.lesson for c in CASES} == {
        "01_devices",
        "02_migration",
        "03_sync_trap",
        "04_call_magic",
        "05_numpy_to_cupy",
        "06_linear_regression",
        "07_logistic_regression",
        "09_kernels",
        "10_launches",
        "08_neural_network",
        "11_feeding_the_gpu",
    }
    for case in CASES:
        assert case.why, case.name
        total = sum(_points(case.lesson).values())
        zeroed = sum(_points(case.lesson)[z] for z in case.zero)
        assert case.score == total - zeroed, f"{case.name}: score and zero disagree"


@pytest.mark.slow
@pytest.mark.xdist_group("redteam")
def test_every_attack_scores_exactly_as_written(redteam_graded):
    report = redteam_graded.report
    results = {(r.student, r.lesson): r for r in report.results}
    problems = []
    for case in CASES:
        r = results.get((student(case), case.lesson))
        if r is None or r.status != "graded":
            problems.append(f"{case.name}: not graded ({r and r.message})")
            continue
        if r.score != case.score:
            problems.append(f"{case.name}: {r.score:g} points, expected {case.score:g}")
        zero = {q for q, (s, top) in r.per_question.items() if s == 0 and top > 0}
        if zero != set(case.zero):
            problems.append(f"{case.name}: zero cells {sorted(zero)}")
        if case.review and not r.review:
            problems.append(f"{case.name}: not listed for review")
    assert problems == []
    assert len(report.results) == len(CASES)


@pytest.mark.slow
@pytest.mark.xdist_group("redteam")
def test_nothing_escaped_the_kernels(redteam_graded):
    received = redteam_graded.received
    before, after = redteam_graded.before, redteam_graded.after
    assert received == []  # no datagram, no UNIX connection
    assert before == after  # nothing written in the project
    marker = redteam_graded.marker
    alive = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert alive.stdout.strip() == ""  # no process outlived its notebook


@pytest.mark.slow
@pytest.mark.xdist_group("redteam")
def test_feedback_pages_hold_no_hidden_test_and_no_script(redteam_graded):
    report = redteam_graded.report
    for r in report.results:
        html = open(r.feedback, encoding="utf-8").read()
        # What only a hidden block holds (a student's own code may name anything).
        for hidden in ("BEGIN HIDDEN TESTS", "submit(_got)", "_course_nonce = "):
            assert hidden not in html, (r.student, hidden)
        assert "<script>window." not in html, r.student
