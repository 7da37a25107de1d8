"""The course website: built with and without answers, then read in Chromium.

Builds the site for two Days (:data:`LESSONS`; ``make site`` builds them all)
twice from one execution cache (``make site`` and ``make site
SOLUTIONS=0``): the second build executes nothing. Checks every built file for
hidden-test text (and, without answers, for answer code) independently of the
builder's own scan, then serves each build on loopback and, in Debian's
Chromium through Playwright, opens the home page and every Day: no console
error, every image with alt text, every "Show solution" block closed, an "Open
in Colab" link and a student notebook that downloads; search finds
"synchronisation". The Chinese edition (``/zh/``): every Day and the Student
guide in Chinese, a language switch on every page of both, the Chinese search
finds "同步" (a word jieba cut out of the index), and the leak scans read it
too. Screenshots of the home page and Day 03, in both languages, go to
``screenshots/``.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from autograder.lessons import REPO_ROOT, find_lesson
from autograder.lessons.conventions import hidden_markers, solution_markers
from autograder.publish.site import build_site, json_strings
from autograder.publish.site_pages import day_time
from tests.e2e.test_browser import CHROMIUM, SHOTS, browser  # noqa: F401 - fixture
from tests.servers import free_port, stop

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("site")]
#: The Days built: the sync trap (searched for) and the kernels (answers shown).
LESSONS = ["03_sync_trap", "09_kernels"]
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (make browser)"
)


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    cache = tmp / "cache"
    with_answers = build_site(
        tmp / "site", solutions=True, cache=cache, log=print, lessons=LESSONS
    )
    without = build_site(
        tmp / "site-0", solutions=False, cache=cache, log=print, lessons=LESSONS
    )
    return with_answers, without


def _lines_between(markers: tuple[str, str], min_length: int = 20) -> set[str]:
    found = set()
    for lesson in LESSONS:
        inside = False
        for line in find_lesson(lesson).read_text(encoding="utf-8").splitlines():
            if markers[0] in line:
                inside = True
            elif markers[1] in line:
                inside = False
            elif inside and len(line.strip()) >= min_length:
                found.add(line.strip())
    return found


def _student_text() -> str:
    """Every cell of every student notebook: what students may see anyway."""
    import nbformat

    return "\n".join(
        cell.source
        for n in LESSONS
        for cell in nbformat.read(
            REPO_ROOT / "notebooks" / n / f"{n}.ipynb", as_version=4
        ).cells
    )


def _texts(out: Path):
    for path in sorted(out.rglob("*")):
        if path.suffix not in {".html", ".js", ".json", ".txt", ".ipynb", ".md"}:
            continue
        if path.relative_to(out).parts[0] == "_static" and path.suffix != ".ipynb":
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        decoded = []
        if path.suffix in (".ipynb", ".json"):  # quotes are escaped in JSON
            decoded = json_strings(json.loads(raw))
        tagless = html.unescape(re.sub(r"<[^>]+>", "", raw))
        yield path, "\n".join([raw, tagless, *decoded])


def test_the_second_build_executes_nothing(sites):
    first, second = sites
    assert sorted(first.executed + first.cached) == LESSONS
    assert not (first.out / ".doctrees").exists()  # Sphinx's pickles stay out
    assert second.executed == [] and second.cached == LESSONS
    assert first.pages >= len(LESSONS) + 4  # home, Days, instructor pages


def test_no_built_file_holds_a_hidden_test(sites):
    hidden = _lines_between(hidden_markers())
    # lines that also appear where students may see them are not hidden text
    visible = _student_text()
    hidden = {line for line in hidden if line not in visible}
    assert len(hidden) > 20  # the check has something to look for
    for report in sites:
        for path, text in _texts(report.out):
            assert "BEGIN HIDDEN" not in text and "END HIDDEN" not in text, path
            assert "_ref_" not in text, path
            leaked = [line for line in hidden if line in text]
            assert not leaked, f"{path}: {leaked[:3]}"


def test_the_build_without_solutions_holds_no_answer_code(sites):
    with_answers, without = sites
    answers = _lines_between(solution_markers())
    visible = _student_text()
    answers = {line for line in answers if line not in visible}
    assert len(answers) > 20
    for path, text in _texts(without.out):
        assert "BEGIN SOLUTION" not in text, path
        leaked = [line for line in answers if line in text]
        assert not leaked, f"{path}: {leaked[:3]}"
    day = (with_answers.out / "days" / "09_kernels.html").read_text(encoding="utf-8")
    assert "Show solution" in day and "gridsize" in day  # the answers are there
    zh = (with_answers.out / "zh" / "days" / "09_kernels.html").read_text("utf-8")
    assert "显示答案" in zh and "gridsize" in zh


def test_the_chinese_edition_renders_the_same_days_in_chinese(sites):
    for report in sites:
        zh = report.out / "zh"
        for lesson in LESSONS:
            page = (zh / "days" / f"{lesson}.html").read_text(encoding="utf-8")
            assert "学习目标" in page and "在 Colab 中打开" in page, lesson
            assert f"notebooks-zh/{lesson}/{lesson}.ipynb" in page  # Colab: zh
            assert 'class="course-lang"' in page and ">English</a>" in page
            english = (report.out / "days" / f"{lesson}.html").read_text("utf-8")
            assert ">中文</a>" in english
            notebook = zh / "notebooks" / f"{lesson}.ipynb"
            assert (
                json.loads(notebook.read_text("utf-8"))["metadata"]["course"]["lang"]
                == "zh_CN"
            )
        guide = (zh / "guides" / "student.html").read_text(encoding="utf-8")
        assert "学生指南" in guide and "../../guides/running-a-class.html" in guide
        index = (zh / "searchindex.js").read_text(encoding="utf-8")
        assert json.dumps("同步")[1:-1] in index or "同步" in index  # jieba's words
        # the zh home page: the quick start and the syllabus with each Day's
        # time, from the sources of the English one
        home = (zh / "index.html").read_text(encoding="utf-8")
        assert "快速开始" in home and "课程表" in home
        assert re.search(r"make</span>\s*<span[^>]*>demo", home)
        for lesson in LESSONS:
            reading, tasks = day_time(lesson)
            assert f"{reading + tasks} 分钟（阅读 {reading}，练习 {tasks}）" in home
        english = (report.out / "index.html").read_text(encoding="utf-8")
        assert f"<td><p>{sum(day_time(LESSONS[0]))} min</p></td>" in english


@pytest.fixture(scope="module")
def served(sites):
    servers = []
    bases = []
    for report in sites:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
            cwd=report.out,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        servers.append(server)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/index.html", timeout=2)
                break
            except OSError:
                assert time.monotonic() < deadline, "the static server did not start"
                time.sleep(0.2)
        bases.append(base)
    yield bases
    for server in servers:
        stop(server)


@pytest.fixture(scope="module")
def page(browser):  # noqa: F811 - the fixture imported above
    return browser.new_page()


def _open(page, url: str) -> list[str]:
    errors: list[str] = []

    def on_console(message):
        if message.type == "error":
            errors.append(message.text)

    def on_response(response):
        if response.status >= 400:
            errors.append(f"{response.status} for {response.url}")

    page.on("console", on_console)
    page.on("response", on_response)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url, wait_until="networkidle")
    page.remove_listener("console", on_console)
    page.remove_listener("response", on_response)
    return errors


@needs_chromium
def test_every_page_loads_clean_with_alt_text_and_closed_solutions(served, page):
    with_answers, without = served
    for base in (with_answers, without):
        assert _open(page, f"{base}/index.html") == []
        assert page.locator("a[href*='days/03_sync_trap']").count() > 0
        # one search (the sidebar's field), and a footer naming the course
        search = ".search-button-field:visible, button.search-button:visible"
        assert page.locator(search).count() == 1
        footer = page.locator("footer").all_inner_texts()
        assert "GPU acceleration with Python" in " ".join(footer)
        if base == with_answers:
            SHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SHOTS / "site-home.png"), full_page=True)
        for lesson in LESSONS:
            url = f"{base}/days/{lesson}.html"
            assert _open(page, url) == [], url
            images = page.locator("main img, article img")
            assert images.count() > 0 or lesson in ("04_call_magic",), url
            for i in range(images.count()):
                alt = images.nth(i).get_attribute("alt") or ""
                assert alt.strip(), f"{url}: image {i} has no alt text"
            hidden = page.locator("details.above-input")
            if base == with_answers:
                assert hidden.count() > 0, f"{url}: no collapsed solution"
            for i in range(hidden.count()):
                assert hidden.nth(i).get_attribute("open") is None, url
            assert page.get_by_text("Open in Colab").count() == 1, url
            download = page.locator("a[download]").first.get_attribute("href")
            fetched = urllib.request.urlopen(f"{base}/days/{download}", timeout=10)
            assert fetched.status == 200 and b"nbformat" in fetched.read(), url
            # long output and error lines wrap: nothing to scroll sideways
            wide = page.evaluate(
                "() => [...document.querySelectorAll('div.cell_output pre')]"
                ".filter(p => p.scrollWidth > p.clientWidth + 1).length"
            )
            assert wide == 0, f"{url}: {wide} output(s) wider than the page"
            if base == with_answers and lesson == "03_sync_trap":
                page.screenshot(path=str(SHOTS / "site-day03.png"))


@needs_chromium
def test_the_chinese_pages_load_and_search_in_chinese(served, page):
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True)
    assert fonts.stdout.strip(), "no CJK font: run `make browser` (fonts-noto-cjk)"
    base = served[0]
    for url, shot in (
        ("zh/index.html", "site-zh-home"),
        ("zh/days/03_sync_trap.html", "site-zh-day03"),
    ):
        assert _open(page, f"{base}/{url}") == [], url
        footer = " ".join(page.locator("footer").all_inner_texts())
        assert "用 Python 进行 GPU 加速" in footer, url
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{shot}.png"), full_page=True)
    page.get_by_text("English", exact=True).first.click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("/days/03_sync_trap.html") and "/zh/" not in page.url
    assert _open(page, f"{base}/zh/search.html?q=同步") == []
    results = page.locator("#search-results li, ul.search li")
    results.first.wait_for(timeout=60_000)
    assert "同步陷阱" in " ".join(results.all_inner_texts())


@needs_chromium
def test_search_finds_synchronisation(served, page):
    base = served[0]
    assert _open(page, f"{base}/search.html?q=synchronisation") == []
    results = page.locator("#search-results li, ul.search li")
    results.first.wait_for(timeout=60_000)
    assert results.count() >= 1
    titles = " ".join(results.all_inner_texts())
    assert "synchronisation" in titles.lower() or "Day 03" in titles
