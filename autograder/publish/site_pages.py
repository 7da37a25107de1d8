"""The course website's home and instructor pages, made from the README."""

from __future__ import annotations

import re

from autograder.lessons import (
    REFERENCE_PREFIX,
    lesson_names,
)
from autograder.lessons.colab import BRANCH, REPOSITORY
from autograder.lessons.conventions import hidden_markers, solution_markers

#: README sections that become instructor pages: (## heading, page name).
INSTRUCTOR_PAGES = (
    ("Instructors", "grading"),
    ("Running a class", "running-a-class"),
    ("Running on a GPU", "gpu"),
)


def readme_sections(text: str) -> dict[str, str]:
    """``{## heading: its text up to the next ## heading}`` (code blocks kept whole)."""
    sections: dict[str, str] = {"": ""}
    current = ""
    fence = False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            current = line[3:].strip()
            sections[current] = ""
            continue
        sections[current] += line
    return sections


def _site_markdown(text: str, promote: bool = True, pages: str = "") -> str:
    """README text for the site: links to repository files point at the
    repository, code blocks holding hidden-test or solution markers (the lesson
    source format, with an answer) are left out, headings move up one level."""
    markers = (hidden_markers()[0], solution_markers()[0])
    blocks = re.split(r"(^```.*?^```[^\n]*\n)", text, flags=re.S | re.M)
    kept = []
    note = "*(This example of a lesson's source is in the repository's README.)*\n"
    for block in blocks:
        if block.startswith("```") and any(m in block for m in markers):
            if not kept or kept[-1] != note and kept[-1].strip():
                kept.append(note)
        else:
            kept.append(block)
    text = "".join(kept)
    # The site never spells the hidden-test markers or reference names, even in
    # prose about them (the leak scan forbids both in every built file).
    text = re.sub(r"`###\s+BEGIN\s+HIDDEN\s+TESTS`", "its begin marker", text)
    text = re.sub(r"`###\s+END\s+HIDDEN\s+TESTS`", "its end marker", text)
    text = text.replace(f"`{REFERENCE_PREFIX}` names", "reference names")
    for heading, name in INSTRUCTOR_PAGES:
        anchor = re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")
        text = text.replace(f"](#{anchor})", f"]({pages}{name})")
    base = f"{REPOSITORY.rstrip('/')}/blob/{BRANCH}/"
    text = re.sub(
        r"\]\((?!https?://|#|mailto:)([^)\s]+)\)", lambda m: f"]({base}{m[1]})", text
    )
    if not promote:
        return text
    return re.sub(r"^(#{3,6}) ", lambda m: m[1][1:] + " ", text, flags=re.M)


def _syllabus(text: str) -> str:
    def link(m: re.Match) -> str:
        day = m[1]
        match = [n for n in lesson_names() if n.startswith(day + "_")]
        return f"| [{day}](days/{match[0]}) |" if match else m[0]

    return re.sub(r"^\| (\d\d) \|", link, text, flags=re.M)


def home_page(readme: str) -> str:
    sections = readme_sections(readme)
    intro = sections[""].split("\n", 1)[1]  # without the README's title
    students = _site_markdown(
        sections.get("Students", ""), promote=False, pages="instructors/"
    )
    days = "\n".join(f"days/{n}" for n in lesson_names())
    pages = "\n".join(f"instructors/{name}" for _, name in INSTRUCTOR_PAGES)
    return f"""# GPU acceleration with Python

{intro.strip()}

Each Day below is the lesson executed on a CPU, with its figures and printed
numbers; GPU figures appear where a lesson shows them, labelled as recorded on
named hardware or as modelled. Every page links to its notebook on Colab and to
the student notebook to download.

## Syllabus

{_syllabus(sections.get("Syllabus", "")).strip()}

## How to start

### Locally

{_site_markdown(sections.get("Quick start", ""), pages="instructors/").strip()}

{students.strip()}

### In a class

Instructors: [grading](instructors/grading),
[running a class](instructors/running-a-class) and
[running on a GPU](instructors/gpu).

```{{toctree}}
:hidden:
:caption: Days
:maxdepth: 1

{days}
```

```{{toctree}}
:hidden:
:caption: Instructors
:maxdepth: 1

{pages}
```
"""


def instructor_pages(readme: str) -> dict[str, str]:
    sections = readme_sections(readme)
    pages = {}
    for heading, name in INSTRUCTOR_PAGES:
        body = _site_markdown(sections.get(heading, ""))
        pages[name] = (
            f"# {heading}\n\n*Generated from the repository's README.*\n\n"
            f"{body.strip()}\n"
        )
    return pages


# --- leak scan ---------------------------------------------------------------
