"""The course website (``make site``): every Day readable in a browser.

Built with Sphinx, MyST-NB and sphinx-book-theme from the one source, under the
student edition's rule: no hidden test, ever.

1. Each Day's page starts as the lesson's solution notebook
   (:func:`autograder.lessons.source_to_notebook`) with its hidden tests removed
   (:func:`autograder.lessons.conventions.strip_hidden`, the one place hidden
   tests are cut out), *before* anything is executed or
   written; the visible part of each test cell stays. The setup cell (an
   installer for Colab) is dropped.
2. The page is executed on the CPU through a cache keyed by its text, the
   ``course`` library and the package versions (:func:`executed`): a rebuild
   with no source change executes nothing.
3. Answer cells: with solutions, their code sits behind a "Show solution"
   button, closed by default (MyST-NB's ``hide-input``), markers removed;
   without (``SOLUTIONS=0``), the student edition's cell replaces them, with
   no output (the lesson's own cells keep theirs).
4. Each figure's alt text (``course.plots.show`` puts it in the output's
   metadata) is copied to the cell metadata MyST-NB reads (``mystnb.image``).
5. Each page opens with an "Open in Colab" link and a download link for the
   student notebook (``notebooks/``, no answers, no hidden tests).
6. The written pages: the home page from README.md, the guides
   (``docs/guides/``) and the measurement logs (``docs/measurements/``), by
   :mod:`autograder.publish.site_pages`; a link within the site that leads
   nowhere fails the build (:func:`broken_links`).
7. ``sphinx-build -b html``, twice: the Chinese edition renders the same
   executed pages at ``/zh/`` (:mod:`autograder.publish.site_zh`), and every
   page gets a link to itself in the other language; then every built file,
   in both, is scanned for hidden-test
   text (and, without solutions, for answer code and for what the reference's
   answer cells printed) by :mod:`autograder.publish.leaks`. A leak fails the
   build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.lessons import (
    REPO_ROOT,
    find_lesson,
    lesson_names,
    source_to_notebook,
    write_notebook,
)
from autograder.lessons.colab import colab_url
from autograder.lessons.conventions import (
    hidden_markers,
    solution_markers,
    strip_hidden,
)
from autograder.publish.leaks import (
    answer_outputs,
    forbidden_text,
    json_strings,  # noqa: F401 - the site test reads notebooks with it
    scan,
    shown_source,
    student_text,
)
from autograder.publish.site_links import broken_links
from autograder.publish.site_pages import copy_site_files, written_pages
from autograder.publish.site_zh import language_switch, zh_sources

CONF = REPO_ROOT / "docs" / "site" / "conf.py"
DEFAULT_OUT = REPO_ROOT / "build" / "site"
DEFAULT_CACHE = REPO_ROOT / "build" / "site-cache"


class SiteLeakError(RuntimeError):
    """A built file holds hidden-test text (or, without solutions, answer code)."""


@dataclass
class SiteReport:
    """What one build did."""

    out: Path
    pages: int = 0
    executed: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _is_solution(cell: Any) -> bool:
    """An answer cell (autograded or manually graded, code or Markdown)."""
    return bool(cell.metadata.get("nbgrader", {}).get("solution"))


def page_notebook(lesson: str) -> Any:
    """The lesson with hidden tests removed and without the Colab setup cell:
    what is executed for the site."""
    nb = source_to_notebook(find_lesson(lesson))
    nb.cells = [c for c in nb.cells if c.get("id") != "course-setup"]
    begin, end = hidden_markers()
    for cell in nb.cells:
        cell.source = strip_hidden(cell.source)
    for cell in nb.cells:
        assert begin not in cell.source and end not in cell.source, cell.get("id")
    return nb


def _fingerprint(nb: Any) -> str:
    """The executed lesson's cache key: its text and the library it runs on."""
    import nbformat

    from autograder.config.settings import library_fingerprint

    digest = hashlib.sha256(nbformat.writes(nb).encode())
    digest.update(library_fingerprint().encode())
    return digest.hexdigest()[:20]


def executed(
    lesson: str, cache: Path = DEFAULT_CACHE, log: Callable[[str], None] = print
) -> tuple[Any, bool]:
    """The page notebook of ``lesson`` executed on the CPU, and whether it came
    from the cache (keyed by the page's text, the course library and versions)."""
    import nbformat
    from nbclient import NotebookClient

    nb = page_notebook(lesson)
    key = _fingerprint(nb)
    path = Path(cache) / f"{lesson}-{key}.ipynb"
    if path.is_file():
        return nbformat.read(path, as_version=4), True
    log(f"executing {lesson} on the CPU...")
    started = time.perf_counter()
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # the notebook's own inline backend
    env["COURSE_FORCE_CPU"] = "1"  # the site shows the CPU run, on any machine
    with tempfile.TemporaryDirectory(prefix="course-site-") as folder:
        client = NotebookClient(
            nb,
            timeout=900,
            kernel_name="python3",
            resources={"metadata": {"path": folder}},
            extra_arguments=["--HistoryManager.enabled=False"],
        )
        client.execute(env=env)
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob(f"{lesson}-*.ipynb"):
        old.unlink()  # one cached version per lesson
    write_notebook(nb, path)
    log(f"executed {lesson} in {time.perf_counter() - started:.0f} s")
    return nb, False


def _strip_markers(source: str) -> str:
    markers = solution_markers()
    return "\n".join(
        line for line in source.splitlines() if not any(m in line for m in markers)
    )


def _student_cells(lesson: str) -> dict[str, str]:
    import nbformat

    released = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
    nb = nbformat.read(released, as_version=4)
    return {c.get("id"): c.source for c in nb.cells}


def _links_cell(lesson: str, hub: str = "") -> Any:
    """Where to work on the Day: the course's hub (an nbgitpuller link to the
    students branch) when one is configured, Colab, or the file."""
    from html import escape

    import nbformat

    from autograder.publish.students_branch import hub_link

    url = colab_url(lesson)
    on_hub = (
        f'<a href="{escape(hub_link(hub, lesson))}">Open on your course\'s hub</a> · '
        if hub
        else ""
    )
    cell = nbformat.v4.new_markdown_cell(
        f'<p class="course-links">{on_hub}<a href="{url}">Open in Colab</a> · '
        f'<a href="../notebooks/{lesson}.ipynb" download>Download the student '
        f"notebook</a> (no answers; on Colab, run its setup cell first)</p>"
    )
    cell["id"] = "course-links"
    return cell


def finish_page(nb: Any, lesson: str, solutions: bool, hub: str = "") -> Any:
    """Collapse or replace answers, set alt text, add the links cell.

    Without solutions every cell's text comes from the student edition (the
    ids must match one to one), and answer cells show no output: what the
    reference printed or drew (a ``predict``'s values) would give the answer
    away. The lesson's own cells keep theirs.
    """
    student = {} if solutions else _student_cells(lesson)
    if not solutions:
        missing = [c.get("id") for c in nb.cells if c.get("id") not in student]
        if missing:
            raise RuntimeError(
                f"{lesson}: cells {missing[:5]} are not in the student edition; "
                "run `make release` first"
            )
    for cell in nb.cells:
        if not solutions:
            cell.source = student[cell.get("id")]
            if _is_solution(cell) and cell.cell_type == "code":
                cell.outputs = []  # what the reference printed is an answer too
                cell.execution_count = None
        if cell.cell_type != "code":
            continue
        if _is_solution(cell) and solutions:
            cell.source = _strip_markers(cell.source)
            tags = cell.metadata.setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
            cell.metadata.setdefault("mystnb", {}).update(
                code_prompt_show="Show solution", code_prompt_hide="Hide solution"
            )
        alts = [
            str(o.get("metadata", {}).get("image/png", {}).get("alt", "")).strip()
            for o in cell.get("outputs", [])
            if "image/png" in o.get("data", {})
        ]
        if alts:
            alt = (
                alts[0]
                if len(alts) == 1
                else " ".join(f"Figure {i + 1}: {a}" for i, a in enumerate(alts))
            )
            if not all(alts):
                raise RuntimeError(
                    f"{lesson}, cell {cell.get('id')}: a figure without alt text; "
                    "show figures with course.plots.show(name), which describes them"
                )
            image = cell.metadata.setdefault("mystnb", {}).setdefault("image", {})
            image["alt"] = alt
    badge = next(
        (i for i, c in enumerate(nb.cells) if c.get("id") == "colab-badge"), None
    )
    if badge is not None:
        nb.cells[badge] = _links_cell(lesson, hub)
    else:
        nb.cells.insert(0, _links_cell(lesson, hub))
    # The title (the lesson's first heading) must come first on the page.
    title = next(
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown" and c.source.lstrip().startswith("# ")
    )
    links = next(i for i, c in enumerate(nb.cells) if c.get("id") == "course-links")
    if links < title:
        link_cell = nb.cells.pop(links)
        title -= 1
        heading, _, rest = nb.cells[title].source.lstrip().partition("\n")
        nb.cells[title].source = f"{heading}\n\n{link_cell.source}\n{rest}"
    return nb


# --- the build -------------------------------------------------------------


def _render(src: Path) -> Path:
    """``sphinx-build -b html`` of the project in ``src``; its pages' folder.

    Raises:
        RuntimeError: Sphinx failed (its output is in the message).
        SiteLeakError: a link leads to no page or heading.
    """
    html_dir = src / "_build" / "html"
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "auto"]
        + ["-d", str(src / "_doctrees"), str(src), str(html_dir)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONWARNINGS="ignore"),
        timeout=1800,
    )
    if built.returncode != 0:
        raise RuntimeError(f"sphinx-build failed:\n{built.stderr[-4000:]}")
    unresolved = [ln for ln in built.stderr.splitlines() if "xref_missing" in ln]
    if unresolved:
        raise SiteLeakError(
            f"{len(unresolved)} link(s) to no page or heading; nothing was "
            "kept:\n" + "\n".join(unresolved[:20])
        )
    return html_dir


def build_site(
    out: Path = DEFAULT_OUT,
    *,
    solutions: bool = True,
    cache: Path = DEFAULT_CACHE,
    lessons: list[str] | None = None,
    log: Callable[[str], None] = print,
    commands: str = "",
    hub: str = "",
) -> SiteReport:
    """Build the site into ``out`` (see the module docstring).

    Raises:
        SiteLeakError: a built file holds hidden-test text, or answer code in a
            build without solutions; or a link within the site leads nowhere.
        RuntimeError: Sphinx failed (its output is in the message).
    """
    started = time.perf_counter()
    out = Path(out)
    report = SiteReport(out)
    names = lessons or lesson_names()
    src = Path(tempfile.mkdtemp(prefix="course-site-src-"))
    try:
        copy_site_files(CONF.parent, src)
        allowed = []
        for name, text in written_pages(commands, names).items():
            path = src / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            allowed.append(text)
        printed: dict[str, str] = {}  # what the reference's answers printed
        finished: dict[str, Any] = {}  # each Day's page, for both languages
        for lesson in names:
            nb, hit = executed(lesson, cache, log)
            (report.cached if hit else report.executed).append(lesson)
            if not solutions:
                printed.update(answer_outputs(nb, lesson, shown_source(lesson, False)))
            nb = finished[lesson] = finish_page(nb, lesson, solutions, hub)
            write_notebook(nb, src / "days" / f"{lesson}.ipynb")
            student = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
            target = src / "_extra" / "notebooks" / f"{lesson}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(student, target)
            allowed.append(shown_source(lesson, solutions))
            allowed.append(student_text(student))
        if out.exists():
            shutil.rmtree(out)
        log(f"rendering {len(names)} Days with Sphinx...")
        # Rendered inside the scratch folder, then moved: MyST-NB writes every
        # executed page, outputs and all, beside the output folder
        # (jupyter_execute/), which must not be beside the published one.
        html_dir = _render(src)
        allowed += zh_sources(src, src / "zh-src", finished, names)
        zh_html = _render(src / "zh-src")
        log(f"rendered in {time.perf_counter() - started:.0f} s since the start")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(html_dir), str(out))
        shutil.move(str(zh_html), str(out / "zh"))
        language_switch(out)
        forbidden = forbidden_text(solutions, "\n".join(allowed))
        shown = "\n".join(allowed)
        forbidden.update({k: v for k, v in printed.items() if k not in shown})
        problems = scan(out, forbidden)
        broken = broken_links(out)
        if broken:
            shutil.rmtree(out, ignore_errors=True)
            raise SiteLeakError(
                f"{len(broken)} broken link(s) within the site; nothing was kept:\n"
                + "\n".join(broken[:20])
            )
        if problems:
            shutil.rmtree(out, ignore_errors=True)
            raise SiteLeakError(
                f"{len(problems)} leak(s); nothing was kept:\n"
                + "\n".join(problems[:20])
            )
        pages = [p for p in out.rglob("*.html") if "_static" not in p.parts]
        report.pages = len(pages)
        (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages
        (out / "course-site.json").write_text(
            json.dumps({"solutions": solutions, "lessons": names}) + "\n",
            encoding="utf-8",
        )
    finally:
        shutil.rmtree(src, ignore_errors=True)
    report.seconds = time.perf_counter() - started
    log(
        f"site: {report.pages} pages in {out} ({report.seconds:.0f} s; executed "
        f"{len(report.executed)}, cached {len(report.cached)}; solutions "
        f"{'shown, collapsed' if solutions else 'left out'})"
    )
    return report


__all__ = ["SiteLeakError", "SiteReport", "build_site", "executed", "page_notebook"]
