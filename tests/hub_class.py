"""A class on a local JupyterHub with system accounts, for the hub tests.

The course's ``autograder/jupyter/jupyterhub_config.py`` as shipped, with
JupyterHub's own local process spawner: every student's server runs under
their own uid, the course service under the grader's account, and ngshare as
a hub service. Only the authenticator (dummy, one password) and the ports
differ from a real install. Needs root (to create the accounts and to spawn
as them), ``useradd``/``runuser`` and ``configurable-http-proxy``;
:func:`why_not` says what is missing.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.config.settings import write_course_config
from autograder.lessons import REPO_ROOT
from tests.servers import free_port, stop

EXAMPLE = REPO_ROOT / "autograder" / "jupyter" / "jupyterhub_config.py"
PROXY = shutil.which(
    "configurable-http-proxy",
    path=os.pathsep.join(
        [str(REPO_ROOT / ".node" / "node_modules" / ".bin"), os.environ["PATH"]]
    ),
)
COURSE = "gpu-course"
GRADER = f"grader-{COURSE}"
INSTRUCTOR = "gc-teach"
STUDENTS = ("gc-ana", "gc-ben")
PASSWORD = "course-hub-test"
NGSHARE_PYTHON = REPO_ROOT / ".ngshare" / "bin" / "python"


class Unavailable(RuntimeError):
    """The hub class cannot run on this machine (the message says why)."""


def _reachable(path: Path) -> bool:
    """Whether every account can reach ``path`` (each folder above it o+x)."""
    return all(p.stat().st_mode & 0o001 for p in [*path.resolve().parents])


def python_for_everyone(base: Path) -> tuple[Path, dict[str, str]]:
    """This venv's Python, run by any account: the venv itself where its
    interpreter is reachable, else a venv at ``base`` whose interpreter is the
    base interpreter's files linked under ``base`` (a hard link is reached by
    its own path; ``/root`` is 0700 on many machines) and whose packages are
    this venv's; with the environment it needs (its ``libpython``, which the
    interpreter's RUNPATH names under the unreachable folder)."""
    real = Path(sys.executable)
    if _reachable(Path(sys.base_prefix)) and _reachable(Path(sys.prefix)):
        return real, {}
    python = base / "python"
    linked = subprocess.run(
        ["cp", "-al", sys.base_prefix, str(python)], capture_output=True, check=False
    )
    if linked.returncode:
        raise Unavailable(
            f"this Python ({sys.base_prefix}) is where other accounts cannot "
            f"reach it, and cannot be hard-linked where they can: {linked.stderr!r}"
        )
    venv = base / "venv"
    (venv / "bin").mkdir(parents=True)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    (venv / "pyvenv.cfg").write_text(
        f"home = {python / 'bin'}\ninclude-system-site-packages = false\n"
        f"version = {sys.version.split()[0]}\n"
    )
    (venv / "bin" / "python").symlink_to(python / "bin" / f"python{version}")
    for script in Path(sys.prefix, "bin").iterdir():  # console scripts, re-pointed
        try:
            first, rest = script.read_text(encoding="utf-8").split("\n", 1)
        except (UnicodeDecodeError, ValueError, IsADirectoryError):
            continue
        if first.startswith("#!") and "python" in first and script.name != "python":
            copy = venv / "bin" / script.name
            if not copy.exists():
                copy.write_text(
                    f"#!{venv / 'bin' / 'python'}\n{rest}", encoding="utf-8"
                )
                copy.chmod(0o755)
    for part in ("lib", "etc", "share"):  # packages, server and lab extensions
        if (Path(sys.prefix) / part).exists():
            (venv / part).symlink_to(Path(sys.prefix) / part)
    return venv / "bin" / "python", {"LD_LIBRARY_PATH": str(python / "lib")}


def why_not() -> str | None:
    """Why the hub class cannot run here, or None."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root, to create a system account per student"
    for tool in ("useradd", "userdel", "runuser"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed, so no system accounts can be made"
    if PROXY is None:
        return "configurable-http-proxy is not installed (make hub-proxy)"
    if not NGSHARE_PYTHON.is_file():
        return "ngshare's environment is missing (make ngshare)"
    for module in ("jupyterhub", "ngshare_exchange", "nbgitpuller"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (make venv)"
    probe = subprocess.run(
        ["useradd", "--help"], capture_output=True, text=True, check=False
    )
    if probe.returncode not in (0, 2):
        return f"useradd does not run here: {probe.stderr[:200]}"
    return None


@dataclass
class HubClass:
    """A running hub with its accounts; ``token[name]``: each user's own hub
    API token; ``service_token``: the course service's."""

    base: Path
    python: Path  # a Python every account runs
    python_env: dict[str, str]  # what it needs in its environment
    url: str
    hub: subprocess.Popen
    course: Path
    ngshare_state: Path
    ngshare_url: str
    service_token: str
    admin_token: str
    token: dict[str, str] = field(default_factory=dict)
    homes: dict[str, Path] = field(default_factory=dict)

    def api(self, method: str, path: str, token: str | None = None, **kw):
        import requests

        headers = {"Authorization": f"token {token or self.admin_token}"}
        return requests.request(
            method, f"{self.url}/hub/api{path}", headers=headers, timeout=60, **kw
        )

    def as_user(
        self, name: str, args: list[str], env: dict | None = None, cwd=None
    ) -> subprocess.CompletedProcess:
        """Run ``args`` as the system account ``name``, in its home."""
        home = self.homes[name]
        base = {
            "HOME": str(home),
            "USER": name,
            "PATH": f"{self.python.parent}{os.pathsep}/usr/bin:/bin",
            "LANG": "C.UTF-8",
            **self.python_env,
        }
        return subprocess.run(
            ["runuser", "-u", name, "--", "env", "-i"]
            + [f"{k}={v}" for k, v in {**base, **(env or {})}.items()]
            + args,
            cwd=cwd or home,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def log(self) -> str:
        return (self.base / "hub.log").read_text(encoding="utf-8", errors="replace")

    def spawn(self, name: str, seconds: float = 120) -> None:
        """Start ``name``'s server (as the hub's Start button does) and wait."""
        reply = self.api("POST", f"/users/{name}/server")
        assert reply.status_code in (201, 202, 400), reply.text
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            model = self.api("GET", f"/users/{name}").json()
            if model.get("servers", {}).get("", {}).get("ready"):
                return
            assert self.hub.poll() is None, self.log()[-4000:]
            time.sleep(0.5)
        raise AssertionError(f"{name}'s server did not start:\n{self.log()[-4000:]}")


def _account(name: str, home: Path) -> None:
    subprocess.run(["userdel", "-r", name], capture_output=True, check=False)
    subprocess.run(
        ["useradd", "-M", "-d", str(home), "-s", "/bin/sh", name],
        check=True,
        capture_output=True,
    )
    home.mkdir(parents=True)
    shutil.chown(home, name, name)


def _course_root(course: Path) -> None:
    """What the course service needs of the course: its settings and Day 01's
    source and release, owned by the grader, private to it."""
    for part in ("autograder/nbgrader_config.py", "autograder/jupyter"):
        source = REPO_ROOT / part
        if source.is_dir():
            shutil.copytree(source, course / part)
        else:
            (course / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, course / part)
    for part in ("notebooks", "solutions"):  # the release, and the source
        shutil.copytree(REPO_ROOT / part / "01_devices", course / part / "01_devices")
    write_course_config(course)
    subprocess.run(["chown", "-R", f"{GRADER}:{GRADER}", str(course)], check=True)
    course.chmod(0o700)


#: Seconds the course service waits before it starts (see :func:`_config`).
SLOW_START = 15


def _config(
    base: Path, python: tuple[Path, dict], ports: dict, tokens: dict[str, str]
) -> Path:
    python, python_env = python
    text = f"""\
c = get_config()  # noqa: F821
load_subconfig({str(EXAMPLE)!r})  # noqa: F821 - the course's hub, as shipped
# A trial login instead of PAM; the rest is the course's.
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Spawner.cmd = [{str(python)!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.environment.update({python_env!r})
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.JupyterHub.bind_url = "http://127.0.0.1:{ports["bind"]}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {ports["hub"]}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports["proxy"]}"
c.ConfigurableHTTPProxy.command = [{PROXY!r}]
c.JupyterHub.db_url = "sqlite:///{base / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(base / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(base / "hub.pid")!r}
for service in c.JupyterHub.services:
    if service["name"] == {COURSE!r}:  # the test acts as the grader's terminal
        service["api_token"] = {tokens["service"]!r}
        service["command"][:1] = [{str(python)!r}, "-m", "jupyterhub.singleuser"]
        # slower than JupyterHub's own 10 s for a managed service, as on a
        # loaded machine: the course's config waits for it
        service["command"][:0] = ["/bin/sh", "-c", 'sleep {SLOW_START}; exec "$0" "$@"']
        service["environment"].update({python_env!r})
c.JupyterHub.services.append({{"name": "test", "api_token": {tokens["admin"]!r}}})
c.JupyterHub.load_roles.append(
    {{
        "name": "test",
        "services": ["test"],
        "scopes": ["admin:users", "admin:servers", "tokens", "list:users"],
    }}
)
"""
    path = base / "jupyterhub_config.py"
    path.write_text(text, encoding="utf-8")
    return path


def start() -> HubClass:
    """Make the accounts and the course, start the hub; :func:`finish` ends it."""
    base = Path(tempfile.mkdtemp(prefix="gc-hub-"))
    base.chmod(0o755)  # every account reaches its home below
    try:
        python = python_for_everyone(base)
    except Unavailable:
        shutil.rmtree(base, ignore_errors=True)
        raise
    homes = {n: base / "home" / n for n in (*STUDENTS, INSTRUCTOR, GRADER)}
    for name, home in homes.items():
        _account(name, home)
    course = homes[GRADER] / "course"
    _course_root(course)
    ports = {k: free_port() for k in ("bind", "hub", "proxy", "service", "ngshare")}
    tokens = {"service": secrets.token_hex(16), "admin": secrets.token_hex(16)}
    config = _config(base, python, ports, tokens)
    env = dict(
        os.environ,
        COURSE_ROOT=str(course),
        COURSE_INSTRUCTORS=INSTRUCTOR,
        COURSE_STUDENTS=",".join(STUDENTS),
        COURSE_SERVICE_PORT=str(ports["service"]),
        COURSE_NGSHARE_PORT=str(ports["ngshare"]),
        COURSE_NGSHARE_STATE=str(base / "ngshare"),
        COURSE_NGSHARE_PYTHON=str(NGSHARE_PYTHON),
        COURSE_STUDENT_SETTINGS=str(base / "settings" / "student"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    env.pop("JUPYTER_CONFIG_DIR", None)
    log = open(base / "hub.log", "w", encoding="utf-8")  # noqa: SIM115
    hub = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(config)],
        cwd=base,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    found = HubClass(
        base=base,
        python=python[0],
        python_env=python[1],
        url=f"http://127.0.0.1:{ports['bind']}",
        hub=hub,
        course=course,
        ngshare_state=base / "ngshare",
        ngshare_url=f"http://127.0.0.1:{ports['ngshare']}/services/ngshare",
        service_token=tokens["service"],
        admin_token=tokens["admin"],
        homes=homes,
    )
    try:
        _wait(found, "/hub/health")
        _wait(found, "/services/ngshare/healthz")
        for name in (*STUDENTS, INSTRUCTOR):
            reply = found.api("POST", f"/users/{name}/tokens", json={"note": "test"})
            assert reply.status_code in (200, 201), reply.text
            found.token[name] = reply.json()["token"]
    except BaseException:
        finish(found)
        raise
    return found


def _wait(found: HubClass, path: str, seconds: float = 120) -> None:
    import requests

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found.hub.poll() is not None:
            break
        try:
            if requests.get(found.url + path, timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{path} did not answer:\n{found.log()[-4000:]}")


def finish(found: HubClass) -> None:
    """Stop the hub and every process of the accounts; remove them."""
    stop(found.hub, timeout=30)
    for name in found.homes:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True, check=False)
    time.sleep(0.5)
    for name in found.homes:
        subprocess.run(["userdel", "-r", name], capture_output=True, check=False)
    shutil.rmtree(found.base, ignore_errors=True)
