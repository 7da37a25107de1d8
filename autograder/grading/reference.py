"""The reference's results for every hidden test, computed once and cached.

A hidden test cell calls the student's functions on inputs it chose and sends
the results back as data (:mod:`course.results`). The grader needs the same
cell's results from the reference implementation: they come from running the
lesson's own solution source, hidden tests included, in a kernel of its own
that no submission ever reaches. Each lesson is run once per machine and source
version; the results are cached as JSON under :func:`cache_dir`, which grading
kernels cannot read (see :mod:`autograder.grading.kernel.sandbox`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from autograder.config.settings import cache_root, locked
from autograder.grading.kernel.limits import GRADING_ENV
from autograder.lessons import source_to_notebook
from autograder.lessons.conventions import grade_id, is_test
from autograder.lessons.releases import release_of
from course.results import MIME, VERSION

#: Per-kernel timeout for the reference run (seconds per cell).
TIMEOUT = 600


class ReferenceError(RuntimeError):
    """The lesson's own solution failed one of its tests or sent no results."""


def cache_dir(release: Any = None) -> Path:
    """Where reference results are kept: ``reference/`` in the grader's cache
    (:func:`autograder.config.settings.cache_root`), a kept release's own."""
    return cache_root(release) / "reference"


def _fingerprint(source: Path) -> str:
    """Changes whenever the lesson, the course library or key versions change."""
    from autograder.config.settings import library_fingerprint

    digest = hashlib.sha256(source.read_bytes())
    digest.update(f"{library_fingerprint()} {VERSION}".encode())
    return digest.hexdigest()[:20]


def results_of(notebook: Any) -> dict[str, list[Any]]:
    """``{grade_id: [results payload, ...]}`` for every test cell of an executed
    notebook (payloads as shown, not yet checked)."""
    found: dict[str, list[Any]] = {}
    for cell in notebook.cells:
        gid = grade_id(cell)
        if not gid or cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            data = output.get("data") if isinstance(output, dict) else None
            if isinstance(data, dict) and MIME in data:
                found.setdefault(gid, []).append(data[MIME])
    return found


def execute_solution(nb: Any, prefix: str = "course-reference-") -> None:
    """Run a notebook of the lesson's own code (a solution, or the probe's
    watched copy) in a kernel of its own, in a new empty folder: a warm one
    (:mod:`autograder.grading.kernel.warmkernel`), as the submissions it is
    compared with get, where the platform has them."""
    from nbclient import NotebookClient

    from autograder.grading.chain.referee import skip_slow_cells
    from autograder.grading.kernel import warmkernel
    from autograder.grading.kernel.forked import KERNEL_START_FAILED

    skip_slow_cells(nb)
    folder = Path(tempfile.mkdtemp(prefix=prefix))

    def run(manager: Any) -> None:
        client = NotebookClient(
            nb,
            timeout=TIMEOUT,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(folder)}},
            extra_arguments=[
                "--HistoryManager.enabled=False",
                "--IPKernelApp.log_level=ERROR",
            ],
            **({"kernel_manager_class": manager} if manager else {}),
        )
        client.execute(env=dict(os.environ, **GRADING_ENV))

    try:
        try:
            run(warmkernel.manager_class())
        except RuntimeError as exc:
            if KERNEL_START_FAILED not in str(exc):
                raise
            # the kernel died before it ran a line (a fork under heavy load),
            # as a grading job retries it: once more, in a cold kernel
            run(None)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run(source: Path) -> dict[str, Any]:
    """Execute the solution notebook; return each hidden test's results tree."""
    nb = source_to_notebook(source)
    execute_solution(nb)
    failed = [
        f"{grade_id(c) or c.get('id')}: {o.get('ename')}: {o.get('evalue')}"
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    if failed:
        raise ReferenceError(
            f"the solution of {source.stem} fails its own cells: " + "; ".join(failed)
        )
    results = {}
    for gid, payloads in results_of(nb).items():
        if len(payloads) != 1:
            raise ReferenceError(f"{source.stem}: {gid} sent {len(payloads)} results")
        results[gid] = payloads[0]["results"]
    return results


def reference_results(lesson: Any) -> dict[str, Any]:
    """``{hidden test grade_id: results tree}`` of the lesson's solution
    (``lesson``: a name or a :class:`~autograder.lessons.releases.Release`).

    Computed on first use (a few seconds: the lesson runs once) and cached.

    Raises:
        ReferenceError: the solution fails its own tests.
    """
    release = release_of(lesson)
    source = release.source
    return _cached(release, source.stem, _fingerprint(source), lambda: _run(source))


def _cached(release: Any, stem: str, key: str, compute: Any) -> dict[str, Any]:
    """``compute()``'s JSON, kept as ``<stem>-<key>.json`` in :func:`cache_dir`;
    computed once by one process at a time, older versions removed."""
    cache = cache_dir(release) / f"{stem}-{key}.json"
    if cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    with locked(cache.with_suffix(".lock")):
        if cache.is_file():  # another process computed it meanwhile
            return json.loads(cache.read_text(encoding="utf-8"))
        found = compute()
        tmp = cache.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(found), encoding="utf-8")
        os.replace(tmp, cache)
        kind = key.split("-")[0] + "-" if key.startswith("measured-") else ""
        for old in cache.parent.glob(f"{stem}-{kind}*.json"):
            measured = old.name.startswith(f"{stem}-measured-")
            if old != cache and measured == bool(kind):
                old.unlink(missing_ok=True)
                old.with_suffix(".lock").unlink(missing_ok=True)  # older layout
        return found


def _measure(release: Any) -> dict[str, Any]:
    """Run the solution notebook as a submission is run (its tests in the
    referee); return each test's record."""
    from traitlets.config import Config

    from autograder.grading.chain.execute import GradingExecute
    from autograder.grading.chain.referee import Referee, collect

    source = release.source
    nb = source_to_notebook(source)
    config = Config()
    config.GradingExecute.timeout = TIMEOUT
    folder = Path(tempfile.mkdtemp(prefix="course-reference-"))
    resources: dict[str, Any] = {
        "metadata": {"path": str(folder)},
        "nbgrader": {
            "assignment": source.stem,
            "notebook": source.stem,
            "student": "reference",
        },
        "course_release": release,
    }
    try:
        nb, resources = Referee(config=config).preprocess(nb, resources)
        nb, resources = GradingExecute(config=config).preprocess(nb, resources)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    records = collect(resources) or {}
    from autograder.grading.chain.kernels import compile_launches

    compile_launches(records)
    tests = [grade_id(c) for c in nb.cells if grade_id(c) and is_test(c)]
    problems = []
    for gid in tests:
        record = records.get(gid)
        if record is None:
            problems.append(f"{gid}: no record")
        elif record.get("error"):
            problems.append(f"{gid}: {record['error']}")
        elif not all(c.get("ok") for c in record.get("checks", [])):
            problems.append(f"{gid}: a check failed")
    if problems:
        raise ReferenceError(
            f"the solution of {source.stem} fails its tests in the referee: "
            + "; ".join(problems)
        )
    return {gid: records[gid] for gid in tests}


def _measured_key(lesson: Any) -> tuple[Path, str]:
    """The lesson's source and the cache key of its records."""
    source = release_of(lesson).source
    digest = hashlib.sha256(_fingerprint(source).encode())
    referee = Path(__file__).parent / "referee"
    for path in sorted(referee.glob("*.py")):
        digest.update(path.read_bytes())
    return source, f"measured-{digest.hexdigest()[:20]}"


def measured_cache(lesson: Any) -> Path:
    """The file :func:`measured_reference` keeps its records in (it may not
    exist yet): a cluster worker is sent it (:mod:`autograder.classgrade.remote`)."""
    source, key = _measured_key(lesson)
    return cache_dir(release_of(lesson)) / f"{source.stem}-{key}.json"


def measured_reference(lesson: Any) -> dict[str, Any]:
    """``{test grade_id: record}`` of the lesson's solution, its tests run in the
    referee (:mod:`autograder.grading.referee`), computed on first use and
    cached like :func:`reference_results`.

    Raises:
        ReferenceError: the solution fails a test there, or breaks the rules.
    """
    source, key = _measured_key(lesson)
    release = release_of(lesson)
    return _cached(release, source.stem, key, lambda: _measure(release))
