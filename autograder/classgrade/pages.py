"""Feedback pages drawn from the store of scores, once it is final.

After a run has recorded its results, :func:`draw_pages` renders each page
whose marks or notebook changed since it was drawn (every page of a result
graded now under a gradebook, whose workers render none; a page whose score
an instructor, a late penalty or a rerun changed), from the store's
:class:`~autograder.classgrade.reports.Marks`. Pages render side by side in
worker processes (0.15 s a page); the files are written by the main process.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

from autograder.classgrade.reports import Marks, Result
from autograder.classgrade.store import notebook_path, page_basis, write_page

#: Below this many pages, rendering them here beats starting processes.
_SIDE_BY_SIDE = 8


def _render(task: tuple[str, str, str, dict]) -> str:
    import nbformat

    from autograder.grading.feedback import render_page

    path, student, lesson, marks = task
    return render_page(nbformat.read(path, as_version=4), student, lesson, marks)


def draw_pages(
    out: Path,
    rows: list[Result],
    marks: dict,
    workers: int = 1,
    drawn: set | None = None,
) -> list[str]:
    """Render the page of each graded row in ``rows`` whose marks (by
    (student, lesson) in ``marks``) are not what its page shows; set each
    row's ``feedback``, and add its (student, lesson) to ``drawn``. Returns a
    problem line per page not rendered."""
    todo = []
    for r in rows:
        found: Marks | None = marks.get((r.student, r.lesson))
        executed = notebook_path(out, r.student, r.lesson)
        if r.status != "graded" or found is None or not executed.is_file():
            continue
        if page_basis(out, r.student, r.lesson) != found.basis(r.digest):
            todo.append((r, (str(executed), r.student, r.lesson, asdict(found))))
        else:
            r.feedback = str(Path(out) / "feedback" / r.lesson / f"{r.student}.html")
    problems: list[str] = []
    if not todo:
        return problems
    tasks = [task for _, task in todo]
    workers = max(1, min(workers, os.cpu_count() or 1, len(tasks)))
    if workers > 1 and len(tasks) >= _SIDE_BY_SIDE:
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        import autograder.grading.feedback  # noqa: F401 - loaded once, forked

        # A fork copies one thread: with others running (a cluster's client),
        # a lock one of them holds would stay held in the child for good.
        alone = threading.active_count() == 1
        context = multiprocessing.get_context("fork" if alone else "forkserver")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            pages = list(pool.map(_safe, tasks, chunksize=4))
    else:
        pages = [_safe(task) for task in tasks]
    for (result, _), page in zip(todo, pages, strict=True):
        if page.startswith("\0"):
            problems.append(f"{result.student}/{result.lesson}: {page[1:]}")
            continue
        basis = marks[(result.student, result.lesson)].basis(result.digest)
        result.feedback = write_page(out, result.student, result.lesson, page, basis)
        if drawn is not None:
            drawn.add((result.student, result.lesson))
    return problems


def _safe(task: tuple[str, str, str, dict]) -> str:
    """A page, or ``"\\0"`` and why it could not be rendered."""
    try:
        return _render(task)
    except Exception as exc:  # noqa: BLE001 - one page, not the batch
        return f"\0feedback page not rendered ({type(exc).__name__}: {exc})"
