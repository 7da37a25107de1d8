"""The Chinese edition from one source: catalogs of English paragraphs, a
changed paragraph caught, the zh notebook's code byte-identical to the
English one's, and every sample graded the same in both editions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

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


def test_a_check_speaks_the_student_s_language(monkeypatch):
    import numpy as np

    from course.checks import check_shape

    monkeypatch.delenv("COURSE_LANG", raising=False)
    with pytest.raises(AssertionError, match=r"w has shape \(2, 3\), expected"):
        check_shape(np.zeros((2, 3)), (3, 2), "w")
    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(AssertionError, match=r"w 的形状是 \(2, 3\)，应当是 \(3, 2\)"):
        check_shape(np.zeros((2, 3)), (3, 2), "w")


def test_a_test_s_own_condition_speaks_the_student_s_language(monkeypatch):
    """``check_that`` templates are collected from the lessons' test cells and
    translated with their fields kept; no lesson's test cell asserts bare."""
    import re

    from course.checks import check_that
    from course.diagrams import describe

    template = "test accuracy {acc:.1%} is below 90%: check the training loop"
    assert template in catalogs.message_ids()
    monkeypatch.delenv("COURSE_LANG", raising=False)
    check_that(True, template, acc=0.5)
    with pytest.raises(AssertionError, match="test accuracy 50.0% is below 90%"):
        check_that(0, template, acc=0.5)
    english_caption = describe("host_device")[0]
    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(AssertionError, match="测试准确率 50.0% 低于 90%"):
        check_that(0, template, acc=0.5)
    assert describe("host_device")[0] != english_caption
    assert "主机" in describe("host_device")[1]
    for lesson in catalogs.translated_lessons("zh_CN"):
        source = catalogs.find_lesson(lesson).read_text(encoding="utf-8")
        bare = re.findall(r"^\s*(?:assert |raise AssertionError)", source, re.M)
        assert not bare, (lesson, "use course.checks.check_that")


def test_every_message_is_translated_compiled_and_keeps_its_fields():
    import string

    from babel.messages.pofile import read_po

    assert catalogs.message_gaps("zh_CN") == []
    with open(catalogs.messages_path("zh_CN"), "rb") as handle:
        catalog = read_po(handle, locale="zh_CN", domain="course")

    def fields(text):
        return sorted(f for _, f, _, _ in string.Formatter().parse(text) if f)

    for text in catalogs.message_ids():
        assert fields(catalog.get(text).string) == fields(text), text


def test_the_student_wheel_carries_the_compiled_messages(tmp_path):
    import zipfile

    from autograder.publish.bundle import build_wheel

    with zipfile.ZipFile(build_wheel(tmp_path)) as wheel:
        assert "course/locale/zh_CN/LC_MESSAGES/course.mo" in wheel.namelist()


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


def test_the_language_follows_the_notebook_then_course_lang(monkeypatch, tmp_path):
    """A kernel learns its notebook from Jupyter (``JPY_SESSION_NAME``): a zh
    edition's notebook speaks Chinese without any setting; ``COURSE_LANG``
    and the grader's ``use_language`` come first."""
    from course import i18n

    zh = REPO_ROOT / "notebooks-zh" / LESSON / f"{LESSON}.ipynb"
    en = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
    monkeypatch.delenv("COURSE_LANG", raising=False)
    monkeypatch.setenv("JPY_SESSION_NAME", str(zh))
    assert i18n.language() == "zh_CN"
    assert i18n.say("note: {note}", note="x") == "注意：x"
    monkeypatch.setenv("JPY_SESSION_NAME", str(en))
    assert i18n.language() == "en"
    monkeypatch.chdir(zh.parent)  # a path relative to the server's root
    monkeypatch.setenv("JPY_SESSION_NAME", f"somewhere/{zh.name}")
    assert i18n.language() == "zh_CN"
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "renamed.ipynb"))
    assert i18n.language() == "zh_CN"  # the file is gone: the last one read
    monkeypatch.setenv("COURSE_LANG", "en")
    assert i18n.language() == "en"
    with i18n.use_language("zh"):
        assert i18n.language() == "zh_CN"
    assert i18n.language() == "en"


def test_a_hidden_test_s_message_speaks_the_notebook_s_language():
    from autograder.grading.compare import VALUES, compare_results
    from course.i18n import use_language
    from course.results import encode

    want, got = encode({"w": [1.0, 2.0]}), encode({"w": [1.0, 2.5]})
    english = compare_results(want, got)
    with use_language("zh_CN"):
        chinese = compare_results(want, got)
        shown = compare_results(want, got, reveal=VALUES)
    assert "differ beyond the tolerance" in english[0]
    assert chinese[0].startswith("w[1]: ") and "超出容差" in chinese[0]
    assert "期望为 2" in shown[0]


@pytest.mark.slow
def test_a_zh_submission_is_rebuilt_on_its_edition_and_told_in_chinese(tmp_path):
    """``course check`` on a Chinese-edition notebook with a central mistake:
    the summary, the visible test's hint and the feedback page (its labels,
    the lesson's prose from the zh release) are in Chinese; the score is the
    English edition's."""
    import subprocess
    import sys

    from autograder.samples import all_samples, write_samples

    sample = next(s for s in all_samples([LESSON]) if s.name == "calls-forward")
    write_samples(tmp_path / "en", samples=[sample])
    en = tmp_path / "en" / f"{sample.name}_{LESSON}.ipynb"
    zh = tmp_path / f"mine_{LESSON}.ipynb"
    nb = nbformat.read(en, as_version=4)
    nbformat.write(catalogs.translate_notebook(nb, LESSON, "zh_CN"), zh)
    outputs = []
    for notebook in (en, zh):
        run = subprocess.run(
            [sys.executable, "-m", "autograder", "check", str(notebook)]
            + ["--out", str(tmp_path / "out")],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        outputs.append(run.stdout)
    english, chinese = outputs
    score = english.splitlines()[0].split(", ")[-1]
    assert ": graded, " in english and score != "12 / 12"
    assert chinese.splitlines()[0].endswith(f": 已评分, {score}"), chinese
    assert "注意：" in chinese or "截止：" in chinese
    page = Path(chinese.split("反馈页面：")[1].split()[0]).read_text(encoding="utf-8")
    assert "得分：" in page and "(Score: " not in page
    assert "学习目标" in page  # the lesson's prose, from the zh release
    assert "**How your work is checked.**" not in page


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


def test_on_colab_the_open_notebook_names_its_language(monkeypatch):
    """Colab sets no ``JPY_SESSION_NAME``: the kernel asks the page for its
    notebook (``google.colab._message``), once."""
    import sys
    import types

    from course import i18n

    zh = json.loads(
        (REPO_ROOT / "notebooks-zh" / LESSON / f"{LESSON}.ipynb").read_text("utf-8")
    )
    asked = []

    def blocking_request(kind, timeout_sec=None):
        asked.append(kind)
        return {"ipynb": zh}

    message = types.SimpleNamespace(blocking_request=blocking_request)
    colab = types.ModuleType("google.colab")
    colab._message = message
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab._message", message)
    monkeypatch.delenv("COURSE_LANG", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setattr(i18n, "_COLAB", [])
    assert i18n.language() == "zh_CN" and i18n.language() == "zh_CN"
    assert asked == ["get_ipynb"]


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


def test_a_kept_release_keeps_its_chinese_edition(tmp_path):
    """A zh notebook carries the English release's stamp, with its language;
    the kept release holds that zh notebook, which a submission of it is
    rebuilt on (and the jobs' course gets a copy of)."""
    from autograder.grading.chain.reassemble import edition_release
    from autograder.lessons.releases import RELEASES, Release, stamp_of

    zh = REPO_ROOT / "notebooks-zh" / LESSON / f"{LESSON}.ipynb"
    stamp = json.loads(zh.read_text(encoding="utf-8"))["metadata"]["course"]
    assert stamp["release"]["lang"] == "zh_CN"
    kept = Release(LESSON, RELEASES / LESSON / stamp_of(zh))
    assert kept.edition("zh_CN").read_bytes() == zh.read_bytes()
    assert Release(LESSON, tmp_path).edition("zh_CN") is None  # none kept there

    from traitlets.config import Config

    config = Config()  # a course root with the English release only
    config.CourseDirectory.root = str(tmp_path)
    config.CourseDirectory.release_directory = "notebooks"
    english = REPO_ROOT / "notebooks" / LESSON / f"{LESSON}.ipynb"
    (tmp_path / "notebooks" / LESSON).mkdir(parents=True)
    shutil.copyfile(english, tmp_path / "notebooks" / LESSON / english.name)
    rebuilt = edition_release(config, LESSON, LESSON, "zh_CN")  # from the catalogs
    assert "学习目标" in "".join(c.source for c in rebuilt.cells)
    (tmp_path / "notebooks-zh" / LESSON).mkdir(parents=True)
    shutil.copyfile(zh, tmp_path / "notebooks-zh" / LESSON / zh.name)
    kept_copy = edition_release(config, LESSON, LESSON, "zh_CN")
    assert kept_copy == nbformat.read(zh, as_version=4)
