"""The Chinese edition's messages: the checks', a test's own conditions', the
grader's (comparisons, verdict, ``course check``, the feedback page), each in
the notebook's language (:mod:`course.i18n`); a zh submission graded on its
own edition; a kept release keeping it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.lessons import REPO_ROOT, catalogs

LESSON = "04_call_magic"


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
    assert "反馈页面：" in chinese and "feedback page:" not in chinese
    page = Path(chinese.split("反馈页面：")[1].split()[0]).read_text(encoding="utf-8")
    assert "得分：" in page and "(Score: " not in page
    assert "学习目标" in page  # the lesson's prose, from the zh release
    assert "**How your work is checked.**" not in page


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


def test_a_kept_release_keeps_its_chinese_edition(tmp_path):
    """A zh notebook carries the English release's stamp, with its language;
    the kept release holds that zh notebook, which a submission of it is
    rebuilt on (and the jobs' course gets a copy of)."""
    from autograder.grading.chain.reassemble import edition_release
    from autograder.lessons.releases import Release, stamp, stamp_of
    from autograder.publish.release import keep_edition

    zh = REPO_ROOT / "notebooks-zh" / LESSON / f"{LESSON}.ipynb"
    found = json.loads(zh.read_text(encoding="utf-8"))["metadata"]["course"]
    assert found["release"]["lang"] == "zh_CN"
    keep = tmp_path / "keep"  # the release made now, kept as `course release` does
    shutil.copyfile(REPO_ROOT / "notebooks" / LESSON / zh.name, tmp_path / "en")
    assert stamp(tmp_path / "en", LESSON, keep) == stamp_of(zh)
    assert keep_edition(zh, LESSON, "zh", keep) is not None
    kept = Release(LESSON, keep / LESSON / stamp_of(zh))
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
