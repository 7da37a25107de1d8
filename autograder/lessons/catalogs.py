"""Translated editions of the lessons, from one source: gettext catalogs.

A lesson is written once, in English (``solutions/NN_topic/NN_topic.py``).
Its prose is translated paragraph by paragraph in a gettext catalog per
lesson and language, ``locale/<lang>/LC_MESSAGES/<lesson>.po``: each entry's
msgid is one English paragraph of a Markdown cell (blocks between blank
lines; a fenced code block is one block), its msgctxt the lesson, so no
positional cell id is needed. Code cells are never translated: test cells,
answer cells and their metadata are the English edition's, byte for byte.

:func:`update` extracts a lesson's paragraphs and merges them into its
catalog with Babel's ``Catalog.update``, which keeps every translation, marks
one whose English paragraph changed as fuzzy, and adds new paragraphs
untranslated; :func:`gaps` lists the fuzzy and missing entries, which
``course release --check`` reports (the lesson and the paragraph's first
words) and which keep a lesson out of its translated release;
:func:`translate_notebook` gives a released notebook its translated prose.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.lessons import REPO_ROOT, find_lesson, source_to_notebook
from autograder.lessons.conventions import strip_hidden

LOCALE = REPO_ROOT / "locale"
#: The languages with an edition, by the code ``--lang`` takes.
LANGUAGES = {"zh": "zh_CN"}
_FENCE = re.compile(r"^\s*(```|~~~)")


def blocks(markdown: str) -> list[str]:
    """A Markdown cell's paragraphs: blocks between blank lines, a fenced
    code block kept whole."""
    found, current, fenced = [], [], False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                found.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        found.append("\n".join(current))
    return found


def paragraphs(lesson: str) -> list[tuple[str, int]]:
    """Each translatable paragraph of ``lesson`` (or of a :data:`DOCUMENTS`
    page) with its cell's number (a page's: 0)."""
    if lesson in DOCUMENTS:
        text = document_text(lesson)
        return [(block, 0) for block in blocks(text) if _translatable(block)]
    nb = source_to_notebook(find_lesson(lesson))
    return [
        (block, number)
        for number, cell in enumerate(nb.cells)
        if cell.cell_type == "markdown"
        for block in blocks(cell.source)
        if _translatable(block)
    ]


#: Pages other than lessons whose prose is translated, by catalog name.
DOCUMENTS = {
    "guide-student": "docs/guides/student.md",
    "readme-quick-start": "README.md",
}
#: A page translated in part: the sections (``## `` headings) translated.
SECTIONS = {"readme-quick-start": ("Quick start",)}


def document_text(name: str) -> str:
    """The English a :data:`DOCUMENTS` catalog translates: the page, or the
    :data:`SECTIONS` of it named."""
    text = (REPO_ROOT / DOCUMENTS[name]).read_text(encoding="utf-8")
    if name not in SECTIONS:
        return text
    parts = re.split(r"(?m)^(?=## )", text)
    kept = [p for p in parts if p[3:].split("\n", 1)[0].strip() in SECTIONS[name]]
    return "".join(kept)


def _translatable(block: str) -> bool:
    return not block.lstrip().startswith(("```", "~~~", "<img", "![", "[!["))


def source_path(name: str) -> Path:
    """The file a catalog's English comes from."""
    return REPO_ROOT / DOCUMENTS[name] if name in DOCUMENTS else find_lesson(name)


def translate_markdown(text: str, name: str, lang: str) -> str:
    """A :data:`DOCUMENTS` page's Markdown in ``lang``: each paragraph with a
    current translation replaced, code blocks as they are."""
    return _translated(read(lang, name), text, name) + "\n"


def _translated(catalog: Any, text: str, context: str) -> str:
    """``text``'s paragraphs, each one with a current translation replaced."""
    shown = []
    for block in blocks(text):
        entry = catalog.get(block, context=context)
        usable = entry is not None and entry.string and not entry.fuzzy
        shown.append(entry.string if usable else block)
    return "\n\n".join(shown)


def edition_folder(lang: str) -> str:
    """Where an edition's notebooks live: ``notebooks-zh`` for ``zh_CN``."""
    short = next(k for k, v in LANGUAGES.items() if v == lang)
    return f"notebooks-{short}"


def catalog_path(lang: str, lesson: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{lesson}.po"


def read(lang: str, lesson: str) -> Any:
    """The catalog of ``lesson`` in ``lang`` (an empty one if none is kept)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    path = catalog_path(lang, lesson)
    if not path.is_file():
        return Catalog(
            locale=lang,
            domain=lesson,
            project="gpu-course",
            version="1",
            header_comment=f"# {lesson}, translated: its prose, paragraph by paragraph "
            "(autograder/lessons/catalogs.py).",
        )
    with open(path, "rb") as handle:
        return read_po(handle, locale=lang, domain=lesson)


def update(lang: str, lesson: str) -> Path:
    """Merge ``lesson``'s paragraphs into its catalog (see the module)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    catalog = read(lang, lesson)
    # the catalog's own date: an update that changes nothing changes no byte
    template = Catalog(domain=lesson, creation_date=catalog.creation_date)
    source = source_path(lesson).relative_to(REPO_ROOT).as_posix()
    for text, number in paragraphs(lesson):
        template.add(text, context=lesson, locations=[(source, number)])
    catalog.update(template, update_header_comment=False)
    path = catalog_path(lang, lesson)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        write_po(handle, catalog, width=0, omit_header=False, ignore_obsolete=True)
    return path


@dataclass
class Gap:
    """A paragraph without a current translation."""

    lesson: str
    text: str
    why: str  # "missing" or "fuzzy"

    def line(self) -> str:
        words = " ".join(self.text.split()[:8])
        return f"{self.lesson}: {self.why} translation of '{words}...'"


def gaps(lang: str, lesson: str) -> list[Gap]:
    """Every paragraph of ``lesson`` whose ``lang`` translation is missing or
    fuzzy (its English changed since it was translated)."""
    catalog = read(lang, lesson)
    found = []
    for text, _ in paragraphs(lesson):
        entry = catalog.get(text, context=lesson)
        if entry is None or not entry.string:
            found.append(Gap(lesson, text, "missing"))
        elif entry.fuzzy:
            found.append(Gap(lesson, text, "fuzzy"))
    return found


def translated_lessons(lang: str) -> list[str]:
    """The lessons that have a catalog in ``lang``."""
    return [n for n in _catalogs(lang) if n not in DOCUMENTS]


def translated_documents(lang: str) -> list[str]:
    """The :data:`DOCUMENTS` pages that have a catalog in ``lang``."""
    return [n for n in _catalogs(lang) if n in DOCUMENTS]


def _catalogs(lang: str) -> list[str]:
    folder = LOCALE / lang / "LC_MESSAGES"
    return sorted(p.stem for p in folder.glob("*.po")) if folder.is_dir() else []


def translate_notebook(nb: Any, lesson: str, lang: str) -> Any:
    """``nb`` (a released notebook) with its Markdown in ``lang``; code
    cells untouched. A paragraph without a current translation stays English;
    the Colab badge opens this edition's notebook."""
    catalog = read(lang, lesson)
    short = next(k for k, v in LANGUAGES.items() if v == lang)
    for cell in nb.cells:
        if cell.get("id") == "colab-badge":  # Colab opens this edition
            cell.source = cell.source.replace(
                f"/notebooks/{lesson}/", f"/notebooks-{short}/{lesson}/"
            )
            continue
        if cell.cell_type != "markdown":
            continue
        cell.source = _translated(catalog, cell.source, lesson)
    meta = nb.metadata.setdefault("course", {})
    meta["lang"] = lang
    if isinstance(meta.get("release"), dict):  # the stamp names its edition
        meta["release"]["lang"] = lang
    return nb


__all__ = [
    "LANGUAGES",
    "Gap",
    "blocks",
    "catalog_path",
    "edition_folder",
    "gaps",
    "paragraphs",
    "read",
    "translate_markdown",
    "translate_notebook",
    "translated_documents",
    "translated_lessons",
    "update",
]


# -- the course's messages ------------------------------------------------

#: The student library's catalogs, compiled into the wheel (course/i18n.py).
MESSAGES = REPO_ROOT / "course" / "locale"


#: The grader's modules whose words reach a student (through ``say``).
GRADER_SAYS = (
    "grading/compare.py",
    "grading/compare_values.py",
    "grading/feedback.py",
    "grading/chain/verdict.py",
    "grading/page_words.py",
    "cli/check.py",
)


def messages_path(lang: str, suffix: str = ".po") -> Path:
    return MESSAGES / lang / "LC_MESSAGES" / f"course{suffix}"


def message_ids() -> list[str]:
    """Every message a student can read: the English text given to
    ``course.i18n._`` or ``say`` (by the library and by the grader: its
    comparisons, ``course check``, the feedback page), each template the
    lessons' tests give to ``course.checks.check_that``, and the diagrams'
    captions and alt text."""
    from babel.messages.extract import extract

    keywords = {
        "_": None,
        "N_": None,
        "say": None,
        "check_that": (2,),
        "complain": (2,),
    }
    sources = sorted((REPO_ROOT / "course").rglob("*.py"))
    sources += sorted((REPO_ROOT / "solutions").glob("[0-9][0-9]_*/*.py"))
    sources += [REPO_ROOT / "autograder" / name for name in GRADER_SAYS]
    found: list[str] = []
    for path in sources:
        # A hidden test's words stay out: the catalogs ship to students.
        source = strip_hidden(path.read_text(encoding="utf-8"))
        handle = io.BytesIO(source.encode("utf-8"))
        for _, text, _, _ in extract("python", handle, keywords=keywords):
            if text not in found:
                found.append(text)
    from course import diagrams

    for name in diagrams.NAMES:
        found += [text for text in diagrams.source_text(name) if text not in found]
    return found


def update_messages(lang: str) -> Path:
    """Merge the library's messages into its ``lang`` catalog (a changed
    message marked fuzzy), then compile the ``.mo`` the wheel ships."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po, write_po

    path = messages_path(lang)
    catalog = Catalog(locale=lang, domain="course", project="gpu-course", version="1")
    if path.is_file():
        with open(path, "rb") as handle:
            catalog = read_po(handle, locale=lang, domain="course")
    template = Catalog(domain="course", creation_date=catalog.creation_date)
    for text in message_ids():
        template.add(text)
    catalog.update(template, update_header_comment=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        write_po(handle, catalog, width=0, ignore_obsolete=True)
    with open(messages_path(lang, ".mo"), "wb") as handle:
        write_mo(handle, catalog)
    return path


def message_gaps(lang: str) -> list[str]:
    """The library's messages without a current ``lang`` translation, and a
    compiled catalog that is not the ``.po``'s."""
    import io

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    path = messages_path(lang)
    if not path.is_file():
        return [f"course messages: no {lang} catalog ({path.name})"]
    with open(path, "rb") as handle:
        catalog = read_po(handle, locale=lang, domain="course")
    found = []
    for text in message_ids():
        entry = catalog.get(text)
        if entry is None or not entry.string or entry.fuzzy:
            why = "missing" if entry is None or not entry.string else "fuzzy"
            found.append(Gap("course messages", text, why).line())
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    mo = messages_path(lang, ".mo")
    if not mo.is_file() or mo.read_bytes() != compiled.getvalue():
        found.append(f"course messages: {mo.name} is not compiled from {path.name}")
    return found
