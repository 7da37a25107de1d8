"""The one leak scan: nothing a student or a reader receives holds a hidden test,
or (where answers are not shown) an answer or what an answer printed.

:func:`forbidden_text` lists what must not appear: the solution and
hidden-test markers, reference names (``_ref_...``), each line of every hidden
test and, without solutions, each line of every answer, less the lines that
also appear in text that may be shown. :func:`scan_texts` looks for them in
files as a reader meets them (HTML without tags, notebooks and JSON as their
decoded strings). Used by the release (:func:`notebook_leaks`, each student
notebook before it is written), the student bundle
(:mod:`autograder.publish.bundle`) and the website (:func:`scan`, every built
file, and the text outputs of the reference's answer cells:
:func:`answer_outputs`).
"""

from __future__ import annotations

import functools
import html
import json
import re
from pathlib import Path
from typing import Any

from autograder.lessons import (
    REFERENCE_PREFIX,
    find_lesson,
    lesson_names,
)
from autograder.lessons.conventions import (
    block_lines,
    hidden_markers,
    solution_markers,
    without_blocks,
)

_TEXT_SUFFIXES = {".html", ".js", ".json", ".txt", ".ipynb", ".md", ".py", ".css"}


def student_text(notebook: Path) -> str:
    import nbformat

    return "\n".join(c.source for c in nbformat.read(notebook, as_version=4).cells)


def shown_source(lesson: str, solutions: bool) -> str:
    """The lesson's source without its hidden tests (and, without solutions,
    without its answers): what a page may show, built from the source alone."""
    removed = [hidden_markers()] + ([] if solutions else [solution_markers()])
    return without_blocks(find_lesson(lesson).read_text(encoding="utf-8"), *removed)


def forbidden_text(solutions: bool, allowed: str) -> dict[str, str]:
    """Text no built file may hold: markers, reference names, each hidden
    test's lines and, without solutions, each answer's lines. Lines that also
    appear in ``allowed`` (the page text that may be shown) are not listed."""
    found = {m: "a hidden-test marker" for m in hidden_markers()}
    found[REFERENCE_PREFIX] = "a reference name"
    if not solutions:
        found.update({m: "a solution marker" for m in solution_markers()})
    for lesson in lesson_names():
        source = find_lesson(lesson).read_text(encoding="utf-8")
        kinds = [(hidden_markers(), "a hidden test")]
        if not solutions:
            kinds.append((solution_markers(), "an answer"))
        for markers, what in kinds:
            for line in block_lines(source, markers):
                line = line.lstrip("# ").strip()
                if len(line) >= 16 and line not in allowed:
                    found[line] = f"a line of {what} of {lesson}"
    return found


def json_strings(value: Any) -> list[str]:
    """Every string in decoded JSON (keys aside), depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in json_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in json_strings(v)]
    return []


def visible_text(suffix: str, text: str) -> str:
    """A file's text as a reader meets it: HTML without its tags (dropped, as
    highlighted code splits a line into spans, and as spaces, as paragraphs
    join words) and entities, JSON (notebooks included) as its decoded strings."""
    if suffix == ".html":
        return (
            "\n".join(html.unescape(re.sub(r"<[^>]+>", gap, text)) for gap in ("", " "))
            + "\n"
            + html.unescape(text)
        )
    if suffix in (".ipynb", ".json"):
        try:
            return "\n".join(json_strings(json.loads(text)))
        except ValueError:
            return text
    return text


def scan_texts(
    texts: dict[str, tuple[str, str]], forbidden: dict[str, str]
) -> list[str]:
    """Each (name, what) for every forbidden needle in ``texts`` (a name and
    the file's raw and visible text)."""
    return [
        f"{name}: contains {what}: {needle!r}"
        for name, (raw, visible) in texts.items()
        for needle, what in forbidden.items()
        if needle in raw or needle in visible
    ]


def scan(out: Path, forbidden: dict[str, str]) -> list[str]:
    """Every built text file holding forbidden text, with what it holds."""
    texts = {}
    for path in sorted(out.rglob("*")):
        if not path.is_file() or path.suffix not in _TEXT_SUFFIXES:
            continue
        if path.relative_to(out).parts[0] == "_static" and path.suffix != ".ipynb":
            continue  # the theme's own files
        raw = path.read_text(encoding="utf-8", errors="replace")
        texts[str(path.relative_to(out))] = (raw, visible_text(path.suffix, raw))
    return scan_texts(texts, forbidden)


def _output_text(cell: Any) -> list[str]:
    """The lines of text a code cell's outputs show: streams, results as text,
    Markdown, LaTeX, JSON and HTML, and each figure's alt text."""
    lines = []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        texts = [output.get("text", "")]
        texts += [
            data.get(k, "") for k in ("text/plain", "text/markdown", "text/latex")
        ]
        if "application/json" in data:
            texts.append("\n".join(json_strings(data["application/json"])))
        for image in output.get("metadata", {}).values():  # a figure's alt text
            if isinstance(image, dict) and image.get("alt"):
                texts.append(str(image["alt"]))
        for text in texts:
            text = "".join(text) if isinstance(text, list) else str(text)
            lines += [line.strip() for line in text.splitlines()]
        html_text = data.get("text/html", "")
        html_text = "".join(html_text) if isinstance(html_text, list) else html_text
        lines += [
            line.strip() for line in visible_text(".html", html_text).splitlines()
        ]
    return [line for line in lines if line]


def answer_outputs(nb: Any, lesson: str, allowed: str) -> dict[str, str]:
    """Text the reference's answer cells printed or returned in ``nb`` (an
    executed page): no page without solutions may show it. Lines under 16
    characters, and lines some other cell printed too, or ``allowed`` holds,
    are not listed (a heading, a shared figure's title)."""
    from autograder.lessons.conventions import nbgrader_meta

    def is_answer(cell: Any) -> bool:
        return cell.cell_type == "code" and bool(nbgrader_meta(cell).get("solution"))

    others = "\n".join(
        line for c in nb.cells if not is_answer(c) for line in _output_text(c)
    )
    return {
        line: f"an output of an answer of {lesson}"
        for c in nb.cells
        if is_answer(c)
        for line in _output_text(c)
        if len(line) >= 16 and line not in others and line not in allowed
    }


def notebook_leaks(path: Path) -> list[str]:
    """What a student-edition notebook must not contain: the forbidden text
    (hidden tests, answers, markers, reference names), outputs and execution
    counts, and jupytext metadata."""
    import nbformat

    text = path.read_text(encoding="utf-8")
    decoded = visible_text(".ipynb", text)
    problems = [
        f"contains {what}: {needle!r}"
        for needle, what in student_edition_forbidden().items()
        if needle in text or needle in decoded
    ]
    nb = nbformat.reads(text, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count):
            problems.append(f"cell {index + 1} has outputs")
    if "jupytext" in nb.metadata:
        problems.append("has jupytext metadata")
    return problems


@functools.lru_cache(maxsize=4)
def _student_edition_forbidden(_sources: tuple[float, ...] = ()) -> dict[str, str]:
    from autograder.config.settings import instructor_config

    stubs = instructor_config(None).ClearSolutions
    allowed = [shown_source(name, False) for name in lesson_names()]
    allowed += [*dict(stubs.code_stub).values(), str(stubs.text_stub)]
    return forbidden_text(False, "\n".join(allowed))


def student_edition_forbidden() -> dict[str, str]:
    """:func:`forbidden_text` without solutions, what a student may see being
    every lesson's source less its answers and hidden tests (cached until a
    source changes)."""
    stamps = tuple(find_lesson(n).stat().st_mtime for n in lesson_names())
    return _student_edition_forbidden(stamps)
