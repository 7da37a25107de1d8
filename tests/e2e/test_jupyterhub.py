"""Smoke test: the JupyterHub example starts on loopback, a user logs in and gets
a single-user JupyterLab with the course's student settings, with the idle
culler running as a hub service.

Runs ``autograder/jupyter/jupyterhub_config.py`` with the trial settings a
machine without system accounts needs (dummy authenticator, simple local
spawner, no course service), and ``configurable-http-proxy`` from npm (``make
test`` installs it into ``.node/``). Skipped, with the reason, when JupyterHub or
the proxy is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.lessons import REPO_ROOT
from tests.hub_class import EXAMPLE, PROXY
from tests.servers import free_port, stop

PASSWORD = "course-smoke-test"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        PROXY is None, reason="configurable-http-proxy is not installed"
    ),
]


def _config(tmp: Path, hub_port: int, proxy_api: int, bind: int) -> Path:
    root = os.geteuid() == 0 if hasattr(os, "geteuid") else False
    text = f"""\
c = get_config()  # noqa: F821
load_subconfig({str(EXAMPLE)!r})  # noqa: F821 - the example, as shipped
# Trial settings for a machine without system accounts:
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp / "home" / "{username}")!r}
c.Spawner.cmd = [{sys.executable!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.args = {["--allow-root"] if root else []!r}
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# The course service runs as its own account; the idle culler stays.
c.JupyterHub.services = [
    s for s in c.JupyterHub.services if s["name"] == "idle-culler"
]
c.JupyterHub.load_roles = [
    r for r in c.JupyterHub.load_roles if "services" not in " ".join(r["scopes"])
]
c.JupyterHub.bind_url = "http://127.0.0.1:{bind}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.ConfigurableHTTPProxy.command = [{PROXY!r}]
c.JupyterHub.db_url = "sqlite:///{tmp / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(tmp / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(tmp / "hub.pid")!r}
"""
    path = tmp / "jupyterhub_config.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_hub_logs_in_a_user_and_spawns_a_single_user_lab(tmp_path):
    pytest.importorskip("jupyterhub")
    requests = pytest.importorskip("requests")
    hub_port, proxy_api, bind = free_port(), free_port(), free_port()
    config = _config(tmp_path, hub_port, proxy_api, bind)
    ngshare = REPO_ROOT / ".ngshare" / "bin" / "python"
    if not ngshare.is_file():
        pytest.skip("ngshare's environment is missing (make ngshare)")
    course = tmp_path / "course"  # the grader's alone, as the hub insists
    shutil.copytree(
        REPO_ROOT / "autograder" / "jupyter" / "student",
        course / "autograder" / "jupyter" / "student",
    )
    course.chmod(0o700)
    env = dict(
        os.environ,
        COURSE_ROOT=str(course),
        COURSE_STUDENT_SETTINGS=str(tmp_path / "settings" / "student"),
        COURSE_NGSHARE_PYTHON=str(ngshare),
        COURSE_NGSHARE_STATE=str(tmp_path / "ngshare"),
        COURSE_EXCHANGE=str(tmp_path / "exchange"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    env.pop("JUPYTER_CONFIG_DIR", None)
    (tmp_path / "exchange").mkdir()
    log = open(tmp_path / "hub.log", "w", encoding="utf-8")  # noqa: SIM115
    hub = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(config)],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{bind}"

    def wait_for(url: str, session=requests, seconds: float = 120) -> object:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if hub.poll() is not None:
                break
            try:
                reply = session.get(url, timeout=5, allow_redirects=False)
                if reply.status_code == 200:
                    return reply
            except requests.RequestException:
                pass
            time.sleep(0.5)
        log.flush()
        tail = (tmp_path / "hub.log").read_text(encoding="utf-8")[-4000:]
        raise AssertionError(f"{url} did not answer 200:\n{tail}")

    try:
        wait_for(f"{base}/hub/health")
        log.flush()
        started = (tmp_path / "hub.log").read_text(encoding="utf-8")
        assert "Starting managed service idle-culler" in started, started[-3000:]
        session = requests.Session()
        session.get(f"{base}/hub/login", timeout=10)
        xsrf = session.cookies.get("_xsrf", "")
        reply = session.post(
            f"{base}/hub/login?next=",
            data={"username": "alice", "password": PASSWORD, "_xsrf": xsrf},
            timeout=30,
        )
        assert reply.status_code == 200, reply.text[-2000:]
        assert "/hub/login" not in reply.url, "login refused"  # landed past login
        assert any(c.name.startswith("jupyterhub-") for c in session.cookies)
        session.get(f"{base}/hub/spawn", timeout=120)  # starts alice's server
        # Follow the browser's path: the hub hands alice to her server via OAuth.
        deadline = time.monotonic() + 180
        lab = None
        while time.monotonic() < deadline and hub.poll() is None:
            lab = session.get(f"{base}/user/alice/lab", timeout=60)
            if lab.url.endswith("/user/alice/lab") and lab.status_code == 200:
                break
            time.sleep(1)
        assert lab is not None and lab.status_code == 200, (
            tmp_path / "hub.log"
        ).read_text(encoding="utf-8")[-4000:]
        assert lab.url.endswith("/user/alice/lab") and "JupyterLab" in lab.text
        # the student settings of `make lab`, through the hub's Spawner.environment
        data = re.search(
            r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
            lab.text,
            re.S,
        )
        assert data, "no page config in the lab page"
        disabled = json.loads(data.group(1))["disabledExtensions"]
        assert "@jupyter/nbgrader:formgrader" in disabled
        assert (tmp_path / "home" / "alice").is_dir()
    finally:
        stop(hub, timeout=30)
        log.close()
