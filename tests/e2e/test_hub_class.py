"""A class on a shared hub, for real: system accounts, the course's JupyterHub
(``autograder/jupyter/jupyterhub_config.py``) with JupyterHub's local process
spawner, so that every student's server runs under their own uid, and ngshare
as the exchange.

Release, fetch, submit, collect, grading and feedback go through ngshare: the
students through their own servers' assignment list (what the Assignments tab
calls), the instructor as the grader's account with the course service's
token. Then one student tries to list, read and overwrite the other's
submission and feedback, through ngshare with their own token and through the
file system as their own uid, and fails. Skipped, with the reason, where
accounts cannot be made (not root, no ``useradd``) or a piece is missing.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess

import pytest

from tests import hub_class
from tests.hub_class import COURSE, GRADER, STUDENTS
from tests.lesson_helpers import fill_answers

LESSON = "01_devices"
ANA, BEN = STUDENTS
WHY_NOT = hub_class.why_not()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("hub-class"),
    pytest.mark.skipif(WHY_NOT is not None, reason=str(WHY_NOT)),
]


@pytest.fixture(scope="module")
def hub():
    try:
        found = hub_class.start()
    except hub_class.Unavailable as why:
        pytest.skip(str(why))
    try:
        yield found
    finally:
        hub_class.finish(found)


def _teacher(hub, *args: str) -> str:
    """A command in the grader's terminal: its account, the course service's
    token and the instructor's settings."""
    env = {
        "JUPYTERHUB_API_TOKEN": hub.service_token,
        "JUPYTER_CONFIG_DIR": str(hub.course / "autograder/jupyter/instructor"),
        "COURSE_NGSHARE_URL": hub.ngshare_url,
        "COURSE_ROOT": str(hub.course),
    }
    done = hub.as_user(GRADER, [str(hub.python), *args], env=env, cwd=hub.course)
    assert done.returncode == 0, (
        f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout + done.stderr


def _manage(hub, *args: str) -> str:
    code = "from ngshare_exchange.course_management import main; main()"
    return _teacher(hub, "-c", code, *args)


def _assignments(hub, student: str, action: str) -> dict:
    """The student's Assignments tab: ``action`` on their own server."""
    import requests

    reply = requests.post(
        f"{hub.url}/user/{student}/assignments/{action}",
        data={"course_id": COURSE, "assignment_id": LESSON},
        headers={"Authorization": f"token {hub.token[student]}"},
        timeout=300,
    )
    assert reply.status_code == 200, reply.text[:2000]
    found = reply.json()
    assert found["success"], found
    return found


def _ngshare(hub, method: str, path: str, token: str, **kw):
    import requests

    return requests.request(
        method,
        f"{hub.ngshare_url}/{path}",
        headers={"Authorization": f"token {token}"},
        timeout=60,
        **kw,
    )


@pytest.fixture(scope="module")
def cycle(hub):
    """The class's cycle through ngshare; what it left, for the tests."""
    from autograder.lessons import find_lesson, source_to_notebook
    from autograder.samples import all_samples

    for name in STUDENTS:
        hub.spawn(name)
    _manage(hub, "create_course", COURSE, COURSE)
    for name in STUDENTS:
        _manage(hub, "add_student", COURSE, name, "--no-gb")
    _teacher(hub, "-m", "nbgrader", "release_assignment", LESSON)

    solution = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in source_to_notebook(find_lesson(LESSON)).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    mistake = next(s for s in all_samples([LESSON]) if s.name == "forgets-mps")
    answers = {ANA: solution, BEN: {**solution, **mistake.answers}}
    for name in STUDENTS:
        fetched = _assignments(hub, name, "fetch")["value"]
        assert any(a["status"] == "fetched" for a in fetched), fetched
        notebook = hub.homes[name] / LESSON / f"{LESSON}.ipynb"
        assert "BEGIN SOLUTION" not in notebook.read_text(encoding="utf-8")
        fill_answers(notebook, answers[name])  # as the student's editor saves it
        shutil.chown(notebook, name, name)
        _assignments(hub, name, "submit")

    said = _teacher(hub, "-m", "nbgrader", "collect", LESSON)
    assert "Processing 2 submissions" in said, said
    graded = _teacher(
        hub,
        *["-m", "autograder", "grade", "submitted", "--assignment", LESSON],
        *["--out", "grading", "--nbgrader-feedback", "--quiet"],
    )
    assert "2 graded now" in graded and "0 with problems" in graded, graded
    _teacher(hub, "-m", "nbgrader", "release_feedback", LESSON)
    for name in STUDENTS:
        _assignments(hub, name, "fetch_feedback")
    return {"answers": answers}


def test_each_student_s_server_runs_under_their_own_uid(hub, cycle):
    import pwd

    for name in STUDENTS:
        found = subprocess.run(
            ["pgrep", "-u", name, "-f", "jupyterhub.singleuser"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert found.stdout.split(), f"{name} has no server of their own"
        home = hub.homes[name]
        assert home.stat().st_uid == pwd.getpwnam(name).pw_uid
        assert home.stat().st_mode & 0o077 == 0, "the hub keeps homes private"


def test_the_whole_cycle_runs_through_ngshare(hub, cycle):
    import csv

    with open(hub.course / "grading" / "grades.csv", encoding="utf-8") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(grades) == set(STUDENTS)
    assert float(grades[ANA]["total"]) == float(grades[ANA]["max"])
    assert float(grades[BEN]["total"]) < float(grades[BEN]["max"])
    for name in STUDENTS:
        (page,) = (hub.homes[name] / LESSON / "feedback").glob(f"*/{LESSON}.html")
        html = page.read_text(encoding="utf-8")
        assert f"(Score: {float(grades[name]['final']):g}" in html.replace(".0 /", " /")
        assert "BEGIN HIDDEN TESTS" not in html
    # nothing went through a shared folder: ngshare holds every file
    assert any((hub.ngshare_state / "files").iterdir())


def test_a_student_cannot_reach_another_s_work_through_ngshare(hub, cycle):
    mine, theirs = hub.token[BEN], hub.token[ANA]
    listed = _ngshare(hub, "GET", f"submissions/{COURSE}/{LESSON}/{ANA}", theirs)
    stamp = listed.json()["submissions"][-1]["timestamp"]
    refused = {
        "list the class's submissions": ("GET", f"submissions/{COURSE}/{LESSON}"),
        "list hers": ("GET", f"submissions/{COURSE}/{LESSON}/{ANA}"),
        "download hers": ("GET", f"submission/{COURSE}/{LESSON}/{ANA}"),
        "read her feedback": (
            "GET",
            f"feedback/{COURSE}/{LESSON}/{ANA}?timestamp={stamp}",
        ),
        "overwrite her feedback": ("POST", f"feedback/{COURSE}/{LESSON}/{ANA}"),
        "release over the assignment": ("POST", f"assignment/{COURSE}/{LESSON}"),
        "delete the assignment": ("DELETE", f"assignment/{COURSE}/{LESSON}"),
    }
    forged = json.dumps(
        [{"path": f"{LESSON}.ipynb", "content": base64.b64encode(b"{}").decode()}]
    )
    for what, (method, path) in refused.items():
        reply = _ngshare(
            hub, method, path, mine, data={"files": forged, "timestamp": stamp}
        )
        assert reply.status_code == 403, f"ben could {what}: {reply.text[:300]}"

    # A submission "as her" is his own: hers stay as they were.
    before = _ngshare(hub, "GET", f"submissions/{COURSE}/{LESSON}/{ANA}", theirs)
    reply = _ngshare(
        hub,
        "POST",
        f"submission/{COURSE}/{LESSON}",
        mine,
        data={"files": forged, "user": ANA, "student_id": ANA},
    )
    assert reply.status_code == 200
    after = _ngshare(hub, "GET", f"submissions/{COURSE}/{LESSON}/{ANA}", theirs)
    assert after.json() == before.json()
    own = _ngshare(hub, "GET", f"submissions/{COURSE}/{LESSON}/{BEN}", mine)
    assert len(own.json()["submissions"]) == 2
    # ... and his token opens no one's server but his
    import requests

    other = requests.get(
        f"{hub.url}/user/{ANA}/api/contents/{LESSON}",
        headers={"Authorization": f"token {mine}"},
        timeout=30,
        allow_redirects=False,
    )
    assert other.status_code in (302, 403), other.status_code


def test_a_student_cannot_reach_another_s_work_through_the_file_system(hub, cycle):
    stored = sorted(p for p in (hub.ngshare_state / "files").iterdir())
    hers = hub.homes[ANA] / LESSON / f"{LESSON}.ipynb"
    collected = hub.course / "submitted" / ANA / LESSON / f"{LESSON}.ipynb"
    assert stored and hers.is_file() and collected.is_file()
    kept = {p: p.read_bytes() for p in (*stored, hers, collected)}
    attempts = {
        "list the exchange's files": ["ls", str(hub.ngshare_state / "files")],
        "read a file in the exchange": ["cat", str(stored[0])],
        "overwrite a file in the exchange": ["sh", "-c", f"echo x > '{stored[0]}'"],
        "list her home": ["ls", str(hub.homes[ANA])],
        "read her notebook": ["cat", str(hers)],
        "overwrite her notebook": ["sh", "-c", f"echo x > '{hers}'"],
        "read the collected submissions": ["cat", str(collected)],
        "list the course (solutions, gradebook)": ["ls", str(hub.course)],
    }
    for what, command in attempts.items():
        done = hub.as_user(BEN, command)
        assert done.returncode != 0, f"ben could {what}: {done.stdout[:200]}"
        assert "Permission denied" in done.stderr, done.stderr
    assert {p: p.read_bytes() for p in kept} == kept  # nothing was overwritten


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser)")
def test_formgrader_opens_in_a_tab_of_its_own_where_framing_is_refused(hub, cycle):
    """JupyterHub forbids framing its pages (``frame-ancestors 'none'``), so
    nbgrader's framed Formgrader panel would be blank: the course service's
    home page is formgrader, and its JupyterLab's Course menu opens it in a
    new tab."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    from autograder.lessons import REPO_ROOT
    from tests.e2e.test_browser import FLAGS

    shots = REPO_ROOT / "screenshots"
    shots.mkdir(exist_ok=True)
    service = f"{hub.url}/services/{COURSE}"
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(f"{hub.url}/hub/login")
        page.fill("#username_input", hub_class.INSTRUCTOR)
        page.fill("#password_input", hub_class.PASSWORD)
        page.click("#login_submit")
        page.wait_for_url("**/hub/**")

        # The hub's Services menu leads to the course service: formgrader.
        reply = page.goto(f"{service}/")
        page.wait_for_selector("text=Manage Assignments", timeout=60_000)
        assert f"/services/{COURSE}/formgrader" in page.url, page.url
        assert "frame-ancestors 'none'" in reply.all_headers().get(
            "content-security-policy", ""
        ), "this hub would let formgrader be framed: the test proves nothing"
        page.screenshot(path=str(shots / "hub-formgrader.png"))

        # JupyterLab beside it: no framed panel; the Course menu opens a tab.
        page.goto(f"{service}/lab")
        page.wait_for_selector("#jp-main-dock-panel", timeout=90_000)
        config = page.evaluate(
            "JSON.parse(document.getElementById('jupyter-config-data').textContent)"
        )
        assert "@jupyter/nbgrader:formgrader" in config["disabledExtensions"]
        page.get_by_role("menuitem", name="Course").click()
        with context.expect_page(timeout=60_000) as opened:
            page.get_by_role("menuitem", name="Formgrader").click()
        tab = opened.value
        tab.wait_for_selector("text=Manage Assignments", timeout=60_000)
        assert f"/services/{COURSE}/formgrader" in tab.url, tab.url
        tab.wait_for_selector(f"text={LESSON}", timeout=60_000)  # the class's lesson
        tab.screenshot(path=str(shots / "hub-formgrader-tab.png"))
        browser.close()


def test_a_day_opens_on_the_hub_from_the_students_branch(hub, cycle):
    """The site's one-click link: nbgitpuller in the student's own server
    clones the students branch (here from a local git path) into their home."""
    import os
    from urllib.parse import urlencode

    import requests

    from autograder.lessons import REPO_ROOT
    from autograder.publish.students_branch import FOLDER, hub_link, write_branch

    repo = hub.base / "course-repo"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(repo)], check=True)
    write_branch(repo, log=lambda *_: None)
    subprocess.run(["chmod", "-R", "a+rX", str(repo)], check=True)
    # a repository on this machine owned by another account: git asks each
    # reader to trust it (on a server: git config --system safe.directory)
    trust = ["git", "config", "--global", "--add", "safe.directory", f"{repo}/.git"]
    assert hub.as_user(ANA, trust).returncode == 0
    token = {"Authorization": f"token {hub.token[ANA]}"}

    # the link as the site writes it, followed by her browser once she has
    # logged in (the hub's pages take a login, not a token)
    session = requests.Session()
    session.get(f"{hub.url}/hub/login", timeout=30)
    session.post(
        f"{hub.url}/hub/login?next=",
        data={
            "username": ANA,
            "password": hub_class.PASSWORD,
            "_xsrf": session.cookies.get("_xsrf", ""),
        },
        timeout=60,
    )
    link = hub_link(hub.url, LESSON, repository=str(repo))
    page = session.get(link, timeout=120)
    assert page.status_code == 200, page.text[:500]
    assert f"/user/{ANA}/git-pull" in page.url and "nbgitpuller" in page.text.lower()

    # what that page then runs: the pull, as an event stream
    query = urlencode({"repo": str(repo), "branch": "students", "targetpath": FOLDER})
    events = []
    with requests.get(
        f"{hub.url}/user/{ANA}/git-pull/api?{query}",
        headers=token,
        stream=True,
        timeout=300,
    ) as stream:
        for line in stream.iter_lines(decode_unicode=True):
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if events[-1].get("phase") in ("finished", "error"):
                    break
    assert events and events[-1]["phase"] == "finished", events[-3:]
    pulled = hub.homes[ANA] / FOLDER
    notebook = pulled / "notebooks" / LESSON / f"{LESSON}.ipynb"
    assert notebook.is_file()
    assert os.stat(notebook).st_uid == os.stat(hub.homes[ANA]).st_uid  # hers
    for absent in ("solutions", "releases", "autograder", "tests"):
        assert not (pulled / absent).exists(), absent
