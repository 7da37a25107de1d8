"""The website's leak scan: no built file may hold an answer or a hidden test."""

from __future__ import annotations

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
from autograder.lessons.conventions import hidden_markers, solution_markers

_TEXT_SUFFIXES = {".html", ".js", ".json", ".txt", ".ipynb", ".md", ".py", ".css"}


def _block_lines(source: str, markers: tuple[str, str]) -> list[str]:
    lines, inside = [], False
    for line in source.splitlines():
        if markers[0] in line:
            inside = True
        elif markers[1] in line:
            inside = False
        elif inside:
            lines.append(line.strip())
    return lines


def student_text(notebook: Path) -> str:
    import nbformat

    return "\n".join(c.source for c in nbformat.read(notebook, as_version=4).cells)


def shown_source(lesson: str, solutions: bool) -> str:
    """The lesson's source without its hidden tests (and, without solutions,
    without its answers): what a page may show, built from the source alone."""
    removed = [hidden_markers()] + ([] if solutions else [solution_markers()])
    kept, inside = [], None
    for line in find_lesson(lesson).read_text(encoding="utf-8").splitlines():
        for begin, end in removed:
            if begin in line:
                inside = end
        if inside is None:
            kept.append(line)
        elif inside in line:
            inside = None
    return "\n".join(kept)


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
        kinds = [(hidden_markers(), "hidden test")]
        if not solutions:
            kinds.append((solution_markers(), "answer"))
        for markers, what in kinds:
            for line in _block_lines(source, markers):
                line = line.lstrip("# ").strip()
                if len(line) >= 16 and line not in allowed:
                    found[line] = f"a line of a {what} of {lesson}"
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


def _visible_text(path: Path) -> str:
    """The file's text as a reader meets it: HTML without tags and entities,
    JSON (notebooks included) as its decoded strings."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        text = html.unescape(re.sub(r"<[^>]+>", " ", text)) + "\n" + html.unescape(text)
    elif path.suffix in (".ipynb", ".json"):
        try:
            text = "\n".join(json_strings(json.loads(text)))
        except ValueError:
            pass
    return text


def scan(out: Path, forbidden: dict[str, str]) -> list[str]:
    """Every built text file holding forbidden text, with what it holds."""
    problems = []
    for path in sorted(out.rglob("*")):
        if not path.is_file() or path.suffix not in _TEXT_SUFFIXES:
            continue
        if path.relative_to(out).parts[0] == "_static" and path.suffix != ".ipynb":
            continue  # the theme's own files
        raw = path.read_text(encoding="utf-8", errors="replace")
        texts = (raw, _visible_text(path))
        for needle, what in forbidden.items():
            if any(needle in t for t in texts):
                problems.append(f"{path.relative_to(out)}: {what}: {needle!r}")
    return problems


# --- the build ---------------------------------------------------------------
