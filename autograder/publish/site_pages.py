"""The course website's written pages: the home page from the README, the
guides (``docs/guides/``), the dated measurement logs (``docs/measurements/``)
and every command's options (given by ``course site``, from its parser).

Each page keeps its links: one to another page becomes a link within the site,
one to any other file of the repository points at the repository."""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path

from autograder.lessons import REFERENCE_PREFIX, REPO_ROOT, find_lesson, lesson_names
from autograder.lessons.colab import BRANCH, REPOSITORY
from autograder.lessons.conventions import hidden_markers, solution_markers

#: The guides, in the order the site lists them: (file stem, title).
GUIDES = (
    ("student", "Student guide"),
    ("instructor", "Instructor guide"),
    ("running-a-class", "Running a class"),
    ("reference", "Reference"),
    ("measurements", "Measurements"),
)
_LINK = re.compile(r"\]\((?!https?://|mailto:)([^)\s#]*)(#[^)\s]*)?\)")


def site_map() -> dict[str, str]:
    """Each repository file the site shows as a page, by its path in the site."""
    found = {"README.md": "index.md"}
    for stem, _ in GUIDES:
        found[f"docs/guides/{stem}.md"] = f"guides/{stem}.md"
    for path in sorted((REPO_ROOT / "docs" / "measurements").glob("*.md")):
        found[f"docs/measurements/{path.name}"] = f"measurements/{path.name}"
    return found


def site_markdown(text: str, source: str, page: str) -> str:
    """``text`` of the repository file ``source`` as the site's ``page``.

    Links to another page of the site stay links within it; links to any other
    file point at the repository. Code blocks holding hidden-test or solution
    markers (the lesson source format, with an answer) are left out, and the
    site never spells those markers or reference names, even in prose (the
    leak scan forbids both in every built file)."""
    markers = (hidden_markers()[0], solution_markers()[0])
    blocks = re.split(r"(^```.*?^```[^\n]*\n)", text, flags=re.S | re.M)
    kept = []
    note = "*(This example of a lesson's source is in the repository's guide.)*\n"
    for block in blocks:
        if block.startswith("```") and any(m in block for m in markers):
            if not kept or kept[-1] != note and kept[-1].strip():
                kept.append(note)
        else:
            kept.append(block)
    text = "".join(kept)
    text = re.sub(r"`###\s+BEGIN\s+HIDDEN\s+TESTS`", "its begin marker", text)
    text = re.sub(r"`###\s+END\s+HIDDEN\s+TESTS`", "its end marker", text)
    text = text.replace(f"`{REFERENCE_PREFIX}` names", "reference names")
    pages = site_map()
    here = posixpath.dirname(source)
    base = f"{REPOSITORY.rstrip('/')}/blob/{BRANCH}/"

    def link(m: re.Match) -> str:
        target, anchor = m[1], m[2] or ""
        if not target:
            return m[0]  # an anchor on this page
        path = posixpath.normpath(posixpath.join(here, target))
        if path in pages:
            shown = posixpath.relpath(pages[path], posixpath.dirname(page) or ".")
            return f"]({shown}{anchor})"
        return f"]({base}{path}{anchor})"

    return _LINK.sub(link, text)


_TIME = re.compile(
    r"\*\*Time\.\*\* About (\d+) minutes of reading and (\d+) minutes of exercises"
)


def day_time(lesson: str) -> tuple[int, int]:
    """A Day's own estimate, from its **Time.** line: (minutes of reading,
    minutes of exercises). The syllabus of both editions shows their sum."""
    found = _TIME.search(find_lesson(lesson).read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"{lesson}: no '**Time.** About N minutes of ...' line")
    return int(found[1]), int(found[2])


def copy_site_files(src: Path, dest: Path) -> None:
    """The site's own files (``docs/site``: conf.py, the favicon, _static/)
    from ``src`` into a project folder ``dest``."""
    for path in src.iterdir():
        if path.is_file():
            shutil.copyfile(path, dest / path.name)
        elif path.name == "_static":
            shutil.copytree(path, dest / path.name, dirs_exist_ok=True)


def _syllabus(text: str, lessons: list[str]) -> str:
    def link(m: re.Match) -> str:
        day = m[1]
        match = [n for n in lessons if n.startswith(day + "_")]
        return f"| [{day}](days/{match[0]}) |" if match else m[0]

    return re.sub(r"^\| (\d\d) \|", link, text, flags=re.M)


def home_page(readme: str, lessons: list[str] | None = None) -> str:
    """The README without its title and its "Guides" table, the Days built
    (``lessons``, default all) linked, with the tables of contents of the
    Days and the guides."""
    lessons = lesson_names() if lessons is None else lessons
    body = readme.split("\n", 1)[1]
    body = re.sub(r"^## Guides\n.*?(?=^## )", "", body, flags=re.S | re.M)
    body = _syllabus(site_markdown(body, "README.md", "index.md"), lessons)
    days = "\n".join(f"days/{n}" for n in lessons)
    guides = "\n".join(f"guides/{stem}" for stem, _ in GUIDES)
    logs = "\n".join(
        page.removesuffix(".md")
        for page in site_map().values()
        if page.startswith("measurements/")
    )
    return f"""# GPU acceleration with Python

{body.strip()}

Each Day below is the lesson executed on a CPU, with its figures and printed
numbers; GPU figures appear where a lesson shows them, labelled as recorded on
named hardware or as modelled. Every page links to its notebook on Colab and to
the student notebook to download.

```{{toctree}}
:hidden:
:caption: Days
:maxdepth: 1

{days}
```

```{{toctree}}
:hidden:
:caption: Guides
:maxdepth: 1

{guides}
```

```{{toctree}}
:hidden:
:caption: Measurement logs
:maxdepth: 1

{logs}
```
"""


def written_pages(
    commands: str = "", lessons: list[str] | None = None
) -> dict[str, str]:
    """``{page in the site: its Markdown}`` for the home page, the guides and
    the measurement logs; ``commands`` (every command's options, Markdown)
    is appended to the Reference; the home page links the Days built
    (``lessons``, default all)."""
    pages = {}
    for source, page in site_map().items():
        text = (REPO_ROOT / source).read_text(encoding="utf-8")
        if page == "index.md":
            pages[page] = home_page(text, lessons)
            continue
        pages[page] = site_markdown(text, source, page)
        if page == "guides/reference.md" and commands:
            pages[page] = pages[page].rstrip() + "\n\n" + commands
    return pages
