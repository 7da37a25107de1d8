"""The Chinese edition from one source: catalogs of English paragraphs, a
changed paragraph caught, the zh notebook's code byte-identical to the
English one's, and every sample graded the same in both editions."""

from __future__ import annotations

import json
import shutil

import nbformat
import pytest

from autograder.lessons import REPO_ROOT, catalogs, releases
from autograder.publish.release import release_edition

#: Every catalog of prose: the lessons' and the Student guide's.
_TRANSLATED = catalogs.translated_lessons("zh_CN") + catalogs.translated_documents(
    "zh_CN"
)
LESSON = "04_call_magic"  # the first Day with a complete Chinese catalog
EN = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
ZH = REPO_ROOT / "notebooks-zh" / LESSON / f"{LESSON}.ipynb"


def test_a_fenced_block_is_one_paragraph():
    text = "Intro line\nsecond line\n\n```python\nx = 1\n\ny = 2\n```\n\nAfter."
    assert catalogs.blocks(text) == [
        "Intro line\nsecond line",
        "```python\nx = 1\n\ny = 2\n```",
        "After.",
    ]


@pytest.mark.parametrize("lesson", catalogs.translated_lessons("zh_CN"))
def test_the_zh_edition_differs_from_the_english_only_in_its_prose(lesson):
    en = json.loads((REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb").read_text())
    zh_path = REPO_ROOT / "notebooks-zh" / lesson / f"{lesson}.ipynb"
    zh = json.loads(zh_path.read_text(encoding="utf-8"))
    assert [c["cell_type"] for c in en["cells"]] == [
        c["cell_type"] for c in zh["cells"]
    ]
    for a, b in zip(en["cells"], zh["cells"], strict=True):
        assert a["metadata"] == b["metadata"] and a.get("id") == b.get("id")
        if a["cell_type"] == "code":
            assert a == b  # tests, stubs and nbgrader metadata: byte for byte
    stamp = {**en["metadata"]["course"]["release"], "lang": "zh_CN"}  # same rules
    assert zh["metadata"]["course"] == {"release": stamp, "lang": "zh_CN"}
    assert releases.stamp_of(zh) == releases.stamp_of(en)
    assert catalogs.gaps("zh_CN", lesson) == []
    badge = "".join(zh["cells"][0]["source"])  # Colab opens the zh notebook
    assert f"/blob/main/notebooks-zh/{lesson}/{lesson}.ipynb" in badge


def test_terms_carry_their_english_name_at_first_use():
    zh = json.loads(ZH.read_text(encoding="utf-8"))
    prose = "".join(
        "".join(c["source"]) for c in zh["cells"] if c["cell_type"] == "markdown"
    )
    assert "魔法方法（magic method）" in prose
    assert "*钩子*（hook）" in prose


def test_every_paragraph_is_translated_and_the_edition_is_current(tmp_path):
    assert catalogs.gaps("zh_CN", LESSON) == []
    written, gaps = release_edition(
        "zh", [LESSON], out_dir=tmp_path, log=lambda *_: None
    )
    assert gaps == [] and written == [tmp_path / LESSON / f"{LESSON}.ipynb"]
    assert written[0].read_bytes() == ZH.read_bytes()


def test_a_changed_english_paragraph_is_caught_and_keeps_the_lesson_out(
    tmp_path, monkeypatch
):
    """As `course release --check` sees it: the paragraph marked fuzzy (its
    old translation kept for the translator), named by its first words."""
    shutil.copytree(catalogs.LOCALE, tmp_path / "locale")
    monkeypatch.setattr(catalogs, "LOCALE", tmp_path / "locale")
    real = catalogs.paragraphs

    def edited(lesson):
        return [
            (text.replace("40 minutes of exercises", "45 minutes of exercises"), n)
            for text, n in real(lesson)
        ]

    monkeypatch.setattr(catalogs, "paragraphs", edited)
    catalogs.update("zh_CN", LESSON)
    (gap,) = catalogs.gaps("zh_CN", LESSON)
    assert gap.why == "fuzzy"
    first = "**Time.** About 20 minutes of reading and 45"
    assert gap.line() == f"{LESSON}: fuzzy translation of '{first}...'"
    entry = catalogs.read("zh_CN", LESSON).get(gap.text, context=LESSON)
    assert entry.fuzzy and "40 分钟" in entry.string  # kept for the translator
    written, gaps = release_edition("zh", [LESSON], out_dir=tmp_path / "nb", log=print)
    assert written == [] and gaps == [gap.line()]


@pytest.mark.slow
def test_every_sample_scores_the_same_per_cell_in_both_editions(tmp_path):
    """Every sample of Day 04, and the reference of every translated Day,
    graded in both editions: the same status, scores per cell and flags."""
    from autograder.classgrade import grade_class
    from autograder.samples import all_samples, write_samples

    lessons = catalogs.translated_lessons("zh_CN")
    samples = [
        s for s in all_samples(lessons) if s.lesson == LESSON or s.kind == "reference"
    ]
    write_samples(tmp_path / "en", samples=samples)
    both = tmp_path / "both"
    both.mkdir()
    for sample in samples:
        en = tmp_path / "en" / f"{sample.name}_{sample.lesson}.ipynb"
        shutil.copyfile(en, both / f"{sample.name}-en_{sample.lesson}.ipynb")
        nb = catalogs.translate_notebook(
            nbformat.read(en, as_version=4), sample.lesson, "zh_CN"
        )
        nbformat.write(nb, both / f"{sample.name}-zh_{sample.lesson}.ipynb")
    report = grade_class(both, None, out_dir=tmp_path / "out", jobs=2, progress=False)
    results = {(r.student, r.lesson): r for r in report.results}
    assert len(results) == 2 * len(samples)
    assert sum(s.lesson == LESSON for s in samples) == len(all_samples([LESSON]))
    for s in samples:
        en = results[(f"{s.name}-en", s.lesson)]
        zh = results[(f"{s.name}-zh", s.lesson)]
        assert (zh.status, zh.per_question) == (en.status, en.per_question), s
        assert zh.flags == en.flags, s


@pytest.mark.parametrize("lesson", _TRANSLATED)
def test_a_chinese_paragraph_is_one_line(lesson):
    """A line break between two Chinese characters renders as a space: each
    paragraph, and each list item, is written on one line."""
    import re

    starts = re.compile(r"^(- |\d+\. |#|\|)")
    for entry in catalogs.read("zh_CN", lesson):
        lines = entry.string.split("\n") if entry.id and entry.string else []
        broken = [line for line in lines[1:] if not starts.match(line)]
        assert not broken, (lesson, entry.id[:60], broken[:1])


def _spans(text: str) -> set[str]:
    import re

    flat = " ".join(text.split())
    return {span.strip("`").strip() for span in re.findall(r"`[^`]+`", flat)}


def _numbers(text: str) -> set[str]:
    import re

    # The seeds write a thousand as "1 000"; the English edition as "1,000".
    joined = re.sub(r"(\d)[ ,](\d{3})\b", r"\1\2", text)
    return set(re.findall(r"\d+(?:\.\d+)?", joined))


#: Numbers a translation writes where the English writes a word: "a column of
#: ones" (一列 1), and the article's own labels (2 隐藏层 的最佳结果).
_NUMBERS_IN_WORDS = {"Append a column of ones": {"1"}, "| model | epochs": {"1", "2"}}


@pytest.mark.parametrize("lesson", _TRANSLATED)
def test_a_translation_keeps_every_code_span_and_number(lesson):
    """Code, names and figures are not translated: each inline code span of
    the English paragraph appears in its translation (as code, or quoted in a
    seed's own words), and so does each number; the translation adds none."""
    for entry in catalogs.read("zh_CN", lesson):
        if not entry.id or not entry.string:
            continue
        flat = " ".join(entry.string.split())
        lost = sorted(s for s in _spans(entry.id) if s not in flat)
        assert not lost, (lesson, entry.id[:60], lost)
        missing = sorted(_numbers(entry.id) - _numbers(entry.string))
        assert not missing, (lesson, entry.id[:60], missing)
        words = next((n for k, n in _NUMBERS_IN_WORDS.items() if k in entry.id), set())
        added = sorted(_numbers(entry.string) - _numbers(entry.id) - words)
        assert not added, (lesson, entry.id[:60], added)


def test_the_student_guide_is_translated_and_its_drift_is_caught():
    """The Student guide's catalog is complete; ``translate_markdown`` keeps
    its code blocks; a changed English paragraph is a gap ``release --check``
    reports."""
    assert "guide-student" in catalogs.translated_documents("zh_CN")
    assert catalogs.gaps("zh_CN", "guide-student") == []
    english = (REPO_ROOT / catalogs.DOCUMENTS["guide-student"]).read_text()
    chinese = catalogs.translate_markdown(english, "guide-student", "zh_CN")
    assert chinese.startswith("# 学生指南") and "make check NB=" in chinese
    changed = english.replace("resist opening them", "do not open them")
    catalog = catalogs.read("zh_CN", "guide-student")
    paragraph = next(b for b in catalogs.blocks(changed) if "do not open" in b)
    assert catalog.get(paragraph, context="guide-student") is None


#: Words the glossary replaced: a catalog writes the glossary's term instead.
_NOT_THE_GLOSSARY_S = {"批次": "批量", "性能剖析": "性能分析", "内核函数": "核函数"}


@pytest.mark.parametrize("lesson", [*_TRANSLATED, "course messages"])
def test_a_translation_uses_the_glossary_s_terms(lesson):
    from babel.messages.pofile import read_po

    if lesson == "course messages":
        with open(catalogs.messages_path("zh_CN"), "rb") as handle:
            entries = list(read_po(handle, locale="zh_CN", domain="course"))
    else:
        entries = list(catalogs.read("zh_CN", lesson))
    for entry in entries:
        for variant, term in _NOT_THE_GLOSSARY_S.items():
            assert variant not in (entry.string or ""), (lesson, variant, term)
