"""The website's Chinese edition, at ``/zh/``: the same executed Days, their
prose from the catalogs.

:func:`zh_sources` writes a second Sphinx project from the English one's
finished pages (each Day executed once, for both): every Markdown paragraph
with a current translation replaced (:func:`autograder.lessons.catalogs.
translate_notebook`), the code and outputs as they are, the links to Colab, the
hub and the download pointing at the zh notebook (``notebooks-zh/``). Its
written pages are a Chinese home page and the Student guide (its catalog,
``guide-student``); the other guides link to the English site, and say so.
Sphinx renders it with ``language = "zh_CN"``, whose search index Sphinx cuts
into words with jieba when it is installed (it is, with the ``docs`` extra).

:func:`language_switch` then gives every page of both editions a link to the
same page in the other language (the home page where it has none). The
build's leak scan covers both trees.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
from pathlib import Path
from typing import Any

from autograder.lessons import REPO_ROOT, write_notebook
from autograder.publish.site_pages import GUIDES, copy_site_files, day_time

LANG, FOLDER = "zh_CN", "zh"
#: The links cell's words (autograder/publish/site.py), in Chinese.
_LINK_WORDS = {
    "Open on your course's hub": "在课程的 hub 上打开",
    "Open in Colab": "在 Colab 中打开",
    "Download the student notebook": "下载学生笔记本",
    "(no answers; on Colab, run its setup cell first)": (
        "（不含答案；在 Colab 上请先运行它的设置单元格）"
    ),
}
#: Appended to the English conf.py for the Chinese project.
_CONF = """
# The Chinese edition (autograder/publish/site_zh.py)
language = "zh_CN"
html_title = "用 Python 进行 GPU 加速"
author = "《用 Python 进行 GPU 加速》课程的作者"
copyright = "《用 Python 进行 GPU 加速》课程的作者，MIT 许可证"

from sphinx.search import languages as _languages  # noqa: E402
from sphinx.search.zh import SearchChinese as _SearchChinese  # noqa: E402


class _ChineseSearch(_SearchChinese):
    # Sphinx 9's Chinese search (jieba) names a ChineseStemmer it never ships,
    # so the search page fails; the stemmer it does ship (for Latin words) is
    # the English one.
    language_name = "English"


_languages["zh"] = _ChineseSearch
"""
_GUIDE_LINK = re.compile(r"\[([^\]]+)\]\((?:docs/guides/)?([a-z-]+)\.md(#[^)\s]*)?\)")


def zh_lessons(names: list[str]) -> list[str]:
    """The Days among ``names`` whose catalog is complete."""
    from autograder.lessons.catalogs import gaps, translated_lessons

    done = set(translated_lessons(LANG))
    return [n for n in names if n in done and not gaps(LANG, n)]


def zh_page(nb: Any, lesson: str) -> Any:
    """A finished English page (``finish_page``'s) of ``lesson`` in Chinese."""
    from autograder.lessons.catalogs import translate_notebook

    page = translate_notebook(copy.deepcopy(nb), lesson, LANG)
    for cell in page.cells:
        if cell.cell_type == "markdown" and "course-links" in cell.source:
            for english, chinese in _LINK_WORDS.items():
                cell.source = cell.source.replace(english, chinese)
            for old in (f"/notebooks/{lesson}/", f"%2Fnotebooks%2F{lesson}%2F"):
                cell.source = cell.source.replace(
                    old, old.replace("notebooks", "notebooks-zh")
                )
        prompts = cell.metadata.get("mystnb", {})
        if "code_prompt_show" in prompts:
            prompts.update(code_prompt_show="显示答案", code_prompt_hide="隐藏答案")
    return page


def _guide_markdown() -> str:
    """The Student guide in Chinese; its links to other guides lead to the
    English pages, marked (英文)."""
    from autograder.lessons.catalogs import document_text, translate_markdown

    text = translate_markdown(document_text("guide-student"), "guide-student", LANG)
    return _to_english(text, "../../guides")


def _to_english(text: str, guides: str) -> str:
    """``text`` (Markdown of a zh page) with each link to a guide's Markdown
    (``name.md`` or ``docs/guides/name.md``) made a link to its English page
    in ``guides``, the folder of the English guides from the page."""

    def link(m: re.Match) -> str:
        return f'<a href="{guides}/{m[2]}.html{m[3] or ""}">{m[1]}</a>'

    return _GUIDE_LINK.sub(link, text)


# A Chinese paragraph is one line: a line break between two characters
# renders as a space.
_INTRO = (
    "这是本课程的中文版：每一课都在 CPU 上执行过，带有它的图和打印出来的数字；"
    "GPU 数字出现在课程展示它们的地方，并标明是在哪块硬件上记录的，或者是建模的。"
    "每一页都链接到它在 Colab 上的中文笔记本，以及可以下载的中文学生笔记本。"
    "代码、测试和评分与英文版完全相同。"
)
_GUIDES = (
    "[学生指南](guides/student.md)是中文的；其他指南只有英文版："
    + "、".join(
        f'<a href="../guides/{stem}.html">{title}</a>'
        for stem, title in GUIDES
        if stem != "student"  # the one guide in Chinese
    )
    + "。"
)


def _quick_start() -> str:
    """The README's Quick start, translated (its catalog:
    ``readme-quick-start``); a link to a guide leads to the English page."""
    from autograder.lessons.catalogs import document_text, translate_markdown

    name = "readme-quick-start"
    text = translate_markdown(document_text(name), name, LANG)
    return _to_english(text, "../guides")


def _syllabus(lessons: list[str], pages: dict[str, Any]) -> str:
    """The syllabus as the English home page has it: each Day, linked by its
    title in Chinese, with its time from the Day's own estimate."""
    rows = ["| 天 | 课程 | 时间 |", "| --- | --- | --- |"]
    for lesson in lessons:
        heading = next(
            c.source.lstrip().split("\n", 1)[0].removeprefix("# ").strip()
            for c in pages[lesson].cells
            if c.cell_type == "markdown" and c.source.lstrip().startswith("# ")
        )
        reading, tasks = day_time(lesson)
        rows.append(
            f"| {lesson[:2]} | [{heading}](days/{lesson}.ipynb) | "
            f"{reading + tasks} 分钟（阅读 {reading}，练习 {tasks}） |"
        )
    return "\n".join(rows)


def _home(lessons: list[str], pages: dict[str, Any]) -> str:
    days = "\n".join(f"days/{n}" for n in lessons)
    return f"""# 用 Python 进行 GPU 加速

{_INTRO}

{_quick_start()}
## 课程表

每一课都能在 CPU 上运行；时间是这一课自己估计的阅读和练习时间。

{_syllabus(lessons, pages)}

{_GUIDES}

```{{toctree}}
:hidden:
:caption: 课程
:maxdepth: 1

{days}
```

```{{toctree}}
:hidden:
:caption: 指南
:maxdepth: 1

guides/student
```
"""


def zh_sources(
    src: Path, zh: Path, pages: dict[str, Any], names: list[str]
) -> list[str]:
    """Write the Chinese project into ``zh`` from the English one in ``src``
    and its finished ``pages``; returns the texts a student may see there (for
    the leak scan)."""
    lessons = zh_lessons(names)
    zh.mkdir(parents=True, exist_ok=True)
    copy_site_files(src, zh)
    with open(zh / "conf.py", "a", encoding="utf-8") as conf:
        conf.write(_CONF)
    chinese = {lesson: zh_page(pages[lesson], lesson) for lesson in lessons}
    seen = []
    written = {
        "index.md": _home(lessons, chinese),
        "guides/student.md": _guide_markdown(),
    }
    for name, text in written.items():
        (zh / name).parent.mkdir(parents=True, exist_ok=True)
        (zh / name).write_text(text, encoding="utf-8")
        seen.append(text)
    for lesson in lessons:
        write_notebook(chinese[lesson], zh / "days" / f"{lesson}.ipynb")
        student = REPO_ROOT / "notebooks-zh" / lesson / f"{lesson}.ipynb"
        target = zh / "_extra" / "notebooks" / f"{lesson}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(student, target)
        seen.append(student.read_text(encoding="utf-8"))
    return seen


_ARTICLE = re.compile(r"<article[^>]*\bbd-article\b[^>]*>")
_BODY = re.compile(r"<body[^>]*>")


def language_switch(out: Path) -> int:
    """Give every page of ``out`` (English) and ``out/zh`` a link to the same
    page in the other language, or to that edition's home page; returns the
    number of pages changed."""
    zh = out / FOLDER
    if not zh.is_dir():
        return 0
    changed = 0
    for page in sorted(out.rglob("*.html")):
        rel = page.relative_to(out)
        if rel.parts[0] in ("_static", "_sources") or "_static" in rel.parts:
            continue
        chinese = rel.parts[0] == FOLDER
        inner = Path(*rel.parts[1:]) if chinese else rel
        other = (out / inner) if chinese else (zh / inner)
        if not other.is_file():
            other = out / "index.html" if chinese else zh / "index.html"
        href = os.path.relpath(other, page.parent).replace(os.sep, "/")
        words = ("English", "en") if chinese else ("中文", "zh-CN")
        link = (
            f'<p class="course-lang"><a href="{href}" hreflang="{words[1]}">'
            f"{words[0]}</a></p>"
        )
        text = page.read_text(encoding="utf-8")
        found = _ARTICLE.search(text) or _BODY.search(text)
        if found is None or 'class="course-lang"' in text:
            continue
        page.write_text(
            text[: found.end()] + link + text[found.end() :], encoding="utf-8"
        )
        changed += 1
    return changed


__all__ = ["language_switch", "zh_lessons", "zh_page", "zh_sources"]
