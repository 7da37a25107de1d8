"""JupyterLab with nbgrader, driven in a real headless Chromium.

Starts JupyterLab on loopback with the course's student (``make lab``) and
instructor (``make instructor``) settings, then, in Debian's Chromium through
Playwright: runs Day 01's student notebook and sees the first exercise raise
NotImplementedError with its hint; runs the solution edition and sees every test
cell pass; opens formgrader and sees the course's assignments; grades that
notebook with ``course grade`` and, in formgrader's Manual Grading, sees its
autograde scores and enters a manual score that reaches the gradebook.
Screenshots of each step go to ``screenshots/`` (git-ignored).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from autograder.lessons import (
    REPO_ROOT,
    find_lesson,
    lesson_names,
    source_to_notebook,
    write_notebook,
)
from tests.servers import free_port, stop

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = REPO_ROOT / "screenshots"
LESSON = "01_devices"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="Debian's chromium is not installed (make browser)"
    ),
]


@contextmanager
def jupyter_lab(root: Path, role: str, tmp: Path):
    """JupyterLab on 127.0.0.1 with the course's ``role`` settings; yields base URL."""
    port, token = free_port(), "course-test-token"
    env = dict(
        os.environ,
        COURSE_ROOT=str(root),
        JUPYTER_CONFIG_DIR=str(REPO_ROOT / "autograder" / "jupyter" / role),
        COURSE_EXCHANGE=str(tmp / "exchange"),
        HOME=str(tmp / "home"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    env.pop("MPLBACKEND", None)  # plots inline, as for a student
    # Test-only user settings: render every cell (no windowing, so prompts and
    # outputs can be read) and no news pop-up over the screenshots.
    settings = tmp / f"{role}-settings"
    for name, value in {
        "notebook-extension/tracker": {"windowingMode": "none"},
        "apputils-extension/notification": {"fetchNews": "false"},
    }.items():
        path = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    (tmp / "exchange").mkdir(exist_ok=True)
    log = open(tmp / f"{role}-server.log", "w", encoding="utf-8")  # noqa: SIM115
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    raise RuntimeError(
                        (tmp / f"{role}-server.log").read_text(encoding="utf-8")[-3000:]
                    ) from None
                time.sleep(0.5)
        yield base, token
    finally:
        stop(server)
        log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    playwright_api = pytest.importorskip("playwright.sync_api")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        yield context
        context.close()


def _shot(page, name: str) -> Path:
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def _open_and_run_all(page, url: str) -> None:
    """Open a notebook, wait for its kernel, then Run > Run All Cells."""
    page.goto(url.replace("?", "?reset&", 1))  # no restored tabs from before
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-Cell", timeout=90_000)
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()  # focus it
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(
        timeout=90_000
    )
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def _wait_until_done(page, timeout_s: float = 240) -> None:
    """Wait until every code cell has run: no "[*]" (running or queued), no "[ ]"
    (not run yet), and the kernel idle."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        # only the notebook on screen: a restored tab may hold other cells
        prompts = ".jp-NotebookPanel:visible .jp-CodeCell .jp-InputPrompt"
        running = page.locator(prompts, has_text="[*]").count()
        waiting = page.locator(prompts, has_text="[ ]").count()
        idle = page.locator(".jp-StatusBar-Widget", has_text="| Idle").count()
        if running == 0 and waiting == 0 and idle:
            return
        time.sleep(0.5)
    _shot(page, "failed-waiting-for-the-notebook")
    raise AssertionError(
        f"the notebook did not finish running: {running} cells running, "
        f"{waiting} not run (screenshots/failed-waiting-for-the-notebook.png)"
    )


def _save(page) -> None:
    page.keyboard.press("Control+s")
    time.sleep(1.5)


def _wait_for_manual_score(db: Path, student: str, score: float) -> None:
    """Wait until formgrader has saved the manual score into the gradebook."""
    from nbgrader.api import Gradebook

    deadline = time.monotonic() + 30
    while True:
        with Gradebook(f"sqlite:///{db}") as gradebook:
            grade = gradebook.find_grade("01-pick-device-test", LESSON, LESSON, student)
            if grade.manual_score == score:
                return
        assert time.monotonic() < deadline, "formgrader did not save the score"
        time.sleep(0.5)


def test_student_solution_and_formgrader_in_chromium(browser, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(REPO_ROOT / "notebooks" / LESSON, root / "student")
    solution = root / "solution" / f"{LESSON}.ipynb"
    write_notebook(source_to_notebook(find_lesson(LESSON)), solution)
    page = browser.new_page()
    with jupyter_lab(root, "student", tmp_path) as (base, token):
        # 1. The student edition: the first exercise stops with its hint.
        _open_and_run_all(page, f"{base}/lab/tree/student/{LESSON}.ipynb?token={token}")
        error = page.locator(".jp-OutputArea-output", has_text="NotImplementedError")
        error.first.wait_for(timeout=120_000)
        error.first.scroll_into_view_if_needed()
        assert "Replace this line with your code" in (error.first.text_content() or "")
        _shot(page, "1-student-notebook-not-implemented")
        # nbgrader's Validate button and assignment list are there for students,
        # formgrader is not
        assert page.get_by_role("button", name="Validate").count() >= 1
        page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
        page.get_by_role("menuitem", name="Assignment List").wait_for(timeout=10_000)
        assert page.get_by_role("menuitem", name="Formgrader").count() == 0
        page.keyboard.press("Escape")
        # 2. The solution edition: every cell runs, every test passes.
        page.close()
        page = browser.new_page()
        _open_and_run_all(
            page, f"{base}/lab/tree/solution/{LESSON}.ipynb?token={token}"
        )
        _wait_until_done(page)
        _save(page)
        _shot(page, "2-solution-notebook-all-tests-pass")
    ran = nbformat.read(solution, as_version=4)
    tests = [c for c in ran.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert tests and all(c.execution_count for c in tests)
    failed = [
        c.metadata["nbgrader"]["grade_id"]
        for c in ran.cells
        if any(o.get("output_type") == "error" for o in c.get("outputs", []))
    ]
    assert failed == []
    # 3. The instructor's formgrader lists the course's assignments (in a copy
    # of the course, so its gradebook is made there).
    course = tmp_path / "instructor"
    shutil.copytree(REPO_ROOT / "solutions", course / "solutions")
    # ... with one submission graded by `course grade` into its gradebook.
    handed_in = course / "submitted" / "alice" / LESSON / f"{LESSON}.ipynb"
    handed_in.parent.mkdir(parents=True)
    shutil.copyfile(solution, handed_in)
    graded = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(course / "submitted")]
        + ["--lesson", LESSON, "--out", str(tmp_path / "grading"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert graded.returncode == 0, graded.stderr[-3000:]
    with jupyter_lab(course, "instructor", tmp_path) as (base, token):
        page.goto(f"{base}/formgrader/manage_assignments?token={token}")
        for lesson in lesson_names():
            page.get_by_text(lesson, exact=True).first.wait_for(timeout=60_000)
        _shot(page, "3-formgrader-assignments")
        # formgrader's Manual Grading opens the autograded submission, shows
        # each test cell's autograde score, and saves a manual score.
        page.goto(f"{base}/formgrader/gradebook/{LESSON}/{LESSON}?token={token}")
        page.get_by_text("Submission #1").first.wait_for(timeout=60_000)
        # triage: a fully autograded notebook needs no manual grade, as after
        # nbgrader's own autograde (its column is empty, data-order 0)
        flag = page.locator("td.needs-manual-grade").first
        expect = pytest.importorskip("playwright.sync_api").expect
        expect(flag).to_have_attribute("data-order", "0", timeout=60_000)
        assert flag.locator(".glyphicon-ok").count() == 0
        page.get_by_text("Submission #1").first.click()
        hidden = page.locator('input.score[id="01-pick-device-hidden-test"]')
        hidden.wait_for(timeout=60_000)
        # formgrader's scripts fill the autograde score in once its models load
        expect(hidden).to_have_attribute("placeholder", "2", timeout=60_000)
        manual = page.locator('input.score[id="01-pick-device-test"]')
        manual.scroll_into_view_if_needed()
        manual.fill("0.5")
        manual.press("Tab")
        _wait_for_manual_score(course / "gradebook.db", "alice", 0.5)
        hidden.scroll_into_view_if_needed()
        _shot(page, "5-formgrader-manual-grading")
        # the instructor's lab has formgrader in its menu and the
        # create-assignment panel on a notebook
        write_notebook(source_to_notebook(find_lesson(LESSON)), course / "draft.ipynb")
        page.goto(f"{base}/lab/tree/draft.ipynb?token={token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
        page.get_by_role("menuitem", name="Formgrader").wait_for(timeout=10_000)
        page.keyboard.press("Escape")
        page.get_by_title("Create Assignment", exact=False).first.click()
        page.get_by_text("Create Assignment", exact=False).first.wait_for(
            timeout=10_000
        )
        _shot(page, "4-instructor-lab-create-assignment")
    page.close()
    for name in (
        "1-student-notebook-not-implemented",
        "2-solution-notebook-all-tests-pass",
        "3-formgrader-assignments",
        "4-instructor-lab-create-assignment",
        "5-formgrader-manual-grading",
    ):
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000, name
