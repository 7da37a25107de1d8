"""The reference's results for every hidden test, computed once and cached.

A hidden test cell calls the student's functions on inputs it chose and sends
the results back as data (:mod:`course.results`). The grader needs the same
cell's results from the reference implementation: they come from running the
lesson's own solution source, hidden tests included, in a kernel of its own
that no submission ever reaches. Each lesson is run once per machine and source
version; the results are cached as JSON under :func:`cache_dir`, which grading
kernels cannot read (see :mod:`autograder.sandbox`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from autograder.conventions import grade_id
from autograder.lessons import REPO_ROOT, find_lesson, source_to_notebook
from autograder.limits import GRADING_ENV
from course.results import MIME, VERSION

#: Per-kernel timeout for the reference run (seconds per cell).
TIMEOUT = 600


class ReferenceError(RuntimeError):
    """The lesson's own solution failed one of its tests or sent no results."""


def cache_dir() -> Path:
    """Where reference results are kept: ``$COURSE_CACHE_DIR`` or the user cache."""
    override = os.environ.get("COURSE_CACHE_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gpu-course" / "reference"


def _fingerprint(source: Path) -> str:
    """Changes whenever the lesson, the course library or key versions change."""
    digest = hashlib.sha256(source.read_bytes())
    for path in sorted((REPO_ROOT / "course").glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    import numpy
    import torch

    digest.update(f"{numpy.__version__} {torch.__version__} {VERSION}".encode())
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


def _run(source: Path) -> dict[str, Any]:
    """Execute the solution notebook; return each hidden test's results tree."""
    from nbclient import NotebookClient

    nb = source_to_notebook(source)
    folder = Path(tempfile.mkdtemp(prefix="course-reference-"))
    try:
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
        )
        client.execute(env=dict(os.environ, **GRADING_ENV))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
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


@contextlib.contextmanager
def _locked(path: Path):
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def reference_results(lesson: str) -> dict[str, Any]:
    """``{hidden test grade_id: results tree}`` of the lesson's solution.

    Computed on first use (a few seconds: the lesson runs once) and cached.

    Raises:
        ReferenceError: the solution fails its own tests.
    """
    source = find_lesson(lesson)
    cache = cache_dir() / f"{source.stem}-{_fingerprint(source)}.json"
    if cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    with _locked(cache.with_suffix(".lock")):
        if cache.is_file():  # another process computed it meanwhile
            return json.loads(cache.read_text(encoding="utf-8"))
        results = _run(source)
        tmp = cache.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(results), encoding="utf-8")
        os.replace(tmp, cache)
        for old in cache.parent.glob(f"{source.stem}-*.json"):
            if old != cache:
                old.unlink(missing_ok=True)
        return results
