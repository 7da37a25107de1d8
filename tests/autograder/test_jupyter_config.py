"""The JupyterLab settings of `make lab` / `make instructor` and the hub example."""

from __future__ import annotations

import json
import os
from pathlib import Path

from traitlets.config.loader import PyFileConfigLoader

from autograder.lessons import REPO_ROOT

JUPYTER = REPO_ROOT / "autograder" / "jupyter"


def _load(folder, name, **env):
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return PyFileConfigLoader(name, path=str(folder)).load_config()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _hub_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """What the hub example reads: a private course root with the students'
    settings, where to copy them, and a Python for ngshare (a stand-in that
    passes the hub's check; the hub class test runs the real one)."""
    import shutil

    course = tmp_path / "course"
    shutil.copytree(JUPYTER / "student", course / "autograder" / "jupyter" / "student")
    course.chmod(0o700)
    python = tmp_path / "ngshare-python"
    python.write_text("#!/bin/sh\nexit 0\n")
    python.chmod(0o755)
    return {
        "COURSE_ROOT": str(course),
        "COURSE_STUDENT_SETTINGS": str(tmp_path / "settings" / "student"),
        "COURSE_NGSHARE_PYTHON": str(python),
        "COURSE_NGSHARE_STATE": str(tmp_path / "ngshare"),
        **more,
    }


def test_students_get_assignments_and_validate_but_not_formgrader():
    page = json.loads((JUPYTER / "student/labconfig/page_config.json").read_text())
    off = {k for k, v in page["disabledExtensions"].items() if v}
    assert off == {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:course-list",
    }
    server = json.loads((JUPYTER / "student/jupyter_server_config.json").read_text())
    assert server["ServerApp"]["ip"] == "127.0.0.1"
    assert "token" not in json.dumps(server)  # the default random token stays on
    config = _load(JUPYTER / "student", "nbgrader_config.py", COURSE_EXCHANGE="/x/ex")
    assert config.Exchange.root == "/x/ex"
    assert config.CourseDirectory.course_id == "gpu-course"
    default = _load(JUPYTER / "student", "nbgrader_config.py")
    assert default.Exchange.root == str(REPO_ROOT / ".exchange")


def test_on_a_hub_both_editions_exchange_through_ngshare():
    import importlib.util

    import pytest

    if importlib.util.find_spec("ngshare_exchange") is None:
        pytest.skip("ngshare-exchange is not installed (make venv)")
    url = "http://127.0.0.1:10101/services/ngshare"
    for edition in ("student", "instructor"):
        config = _load(
            JUPYTER / edition,
            "nbgrader_config.py",
            COURSE_NGSHARE_URL=url,
            JUPYTERHUB_USER="ana",
        )
        factory = config.ExchangeFactory
        assert factory.exchange.__module__ == "ngshare_exchange.exchange"
        assert factory.submit.__module__ == "ngshare_exchange.submit"
        assert factory.exchange().ngshare_url == url
        assert "root" not in config.Exchange  # no shared folder at all


def test_instructor_config_is_the_course_config_plus_the_exchange(tmp_path):
    config = _load(
        JUPYTER / "instructor",
        "nbgrader_config.py",
        COURSE_EXCHANGE=str(tmp_path / "ex"),
        COURSE_ROOT=str(tmp_path),
    )
    assert config.Exchange.root == str(tmp_path / "ex")
    assert config.CourseDirectory.root == str(tmp_path)
    assert config.CourseDirectory.source_directory == "solutions"
    assert config.CourseDirectory.release_directory == "notebooks"
    default = _load(JUPYTER / "instructor", "nbgrader_config.py")
    assert default.Exchange.root == str(REPO_ROOT / ".exchange")
    assert default.CourseDirectory.root == str(REPO_ROOT)
    page = json.loads((JUPYTER / "instructor/labconfig/page_config.json").read_text())
    assert not any(page["disabledExtensions"].values())


def test_jupyterhub_example_wires_one_course_service_and_its_groups(tmp_path):
    env = _hub_env(tmp_path, COURSE_EXCHANGE="/srv/ex")
    config = _load(JUPYTER, "jupyterhub_config.py", **env)
    hub = config.JupyterHub
    services = {s["name"]: s for s in hub.services}
    service = services["gpu-course"]
    course = service["name"]
    assert course == "gpu-course" and service["user"] == f"grader-{course}"
    assert service["url"].startswith("http://127.0.0.1:")
    groups = hub.load_groups
    assert service["user"] in groups[f"formgrade-{course}"]["users"]
    roles = {r["name"]: r for r in hub.load_roles}
    assert f"access:services!service={course}" in roles[f"formgrade-{course}"]["scopes"]
    assert roles[f"nbgrader-{course}"]["groups"] == [f"nbgrader-{course}"]
    assert (
        set(groups[f"nbgrader-{course}"]["users"]) <= config.Authenticator.allowed_users
    )
    assert config.Spawner.environment["COURSE_EXCHANGE"] == "/srv/ex"
    assert service["environment"]["JUPYTER_CONFIG_DIR"].endswith(
        "autograder/jupyter/instructor"
    )
    assert hub.bind_url.startswith("http://127.0.0.1:")
    # formgrader is the service's home page: a tab of its own, never framed
    assert service["environment"]["JUPYTERHUB_DEFAULT_URL"] == "/formgrader"
    # the exchange: ngshare, as a hub service, for students and the service
    ngshare = services["ngshare"]
    assert ngshare["command"][:3] == [env["COURSE_NGSHARE_PYTHON"], "-m", "ngshare"]
    assert "--admins=gpu-course,instructor" in ngshare["command"]
    url = config.Spawner.environment["COURSE_NGSHARE_URL"]
    assert url == service["environment"]["COURSE_NGSHARE_URL"]
    assert url.startswith(ngshare["url"]) and url.endswith("/services/ngshare")
    assert (tmp_path / "ngshare").stat().st_mode & 0o077 == 0  # the hub's alone
    # the students' settings, copied out of the private course root
    settings = Path(config.Spawner.environment["JUPYTER_CONFIG_DIR"])
    assert settings == Path(env["COURSE_STUDENT_SETTINGS"])
    assert (settings / "labconfig" / "page_config.json").is_file()
    assert settings.stat().st_mode & 0o005 == 0o005  # every account reads them


def test_the_hub_refuses_a_course_root_others_can_read(tmp_path):
    import pytest

    env = _hub_env(tmp_path)
    Path(env["COURSE_ROOT"]).chmod(0o755)
    with pytest.raises(SystemExit, match="can be read by other accounts"):
        _load(JUPYTER, "jupyterhub_config.py", **env)
    Path(env["COURSE_ROOT"]).chmod(0o700)
    broken = tmp_path / "broken-python"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    env["COURSE_NGSHARE_PYTHON"] = str(broken)
    with pytest.raises(SystemExit, match="make ngshare"):
        _load(JUPYTER, "jupyterhub_config.py", **env)


def test_both_editions_keep_jupyterlab_state_out_of_the_course(tmp_path):
    for edition in ("student", "instructor"):
        default = _load(JUPYTER / edition, "jupyter_lab_config.py").LabApp
        for value in (default.workspaces_dir, default.user_settings_dir):
            assert not os.path.abspath(value).startswith(str(REPO_ROOT)), value
            assert value.startswith(os.path.expanduser("~")), value
        moved = _load(
            JUPYTER / edition,
            "jupyter_lab_config.py",
            JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"),
        ).LabApp
        assert moved.workspaces_dir == str(tmp_path / "ws")


def test_jupyterhub_example_culls_idle_servers_and_limits_each_user(tmp_path):
    env = _hub_env(tmp_path, COURSE_IDLE_TIMEOUT="1800")
    config = _load(JUPYTER, "jupyterhub_config.py", **env)
    services = {s["name"]: s for s in config.JupyterHub.services}
    culler = services["idle-culler"]["command"]
    assert culler[1:3] == ["-m", "jupyterhub_idle_culler"]
    assert "--timeout=1800" in culler
    roles = {r["name"]: r for r in config.JupyterHub.load_roles}
    assert roles["idle-culler"]["services"] == ["idle-culler"]
    assert {"list:users", "read:users:activity", "delete:servers"} <= set(
        roles["idle-culler"]["scopes"]
    )
    assert config.Spawner.mem_limit == "8G" and config.Spawner.cpu_limit == 2.0
