"""The JupyterLab settings of `make lab` / `make instructor` and the hub example."""

from __future__ import annotations

import json
import os

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


def test_jupyterhub_example_wires_one_course_service_and_its_groups():
    config = _load(
        JUPYTER,
        "jupyterhub_config.py",
        COURSE_ROOT="/srv/course",
        COURSE_EXCHANGE="/srv/ex",
    )
    hub = config.JupyterHub
    (service,) = [s for s in hub.services if s["name"] != "idle-culler"]
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


def test_jupyterhub_example_culls_idle_servers_and_limits_each_user():
    config = _load(JUPYTER, "jupyterhub_config.py", COURSE_IDLE_TIMEOUT="1800")
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


def test_kubernetes_values_have_a_cpu_and_a_gpu_profile_limits_culler_and_exchange():
    import yaml

    values = yaml.safe_load((JUPYTER / "z2jh-values.yaml").read_text())
    single = values["singleuser"]
    assert single["memory"]["limit"] and single["cpu"]["limit"]
    profiles = {p["display_name"]: p for p in single["profileList"]}
    assert set(profiles) == {"CPU", "GPU"} and profiles["CPU"]["default"] is True
    gpu = profiles["GPU"]["kubespawner_override"]
    assert gpu["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert gpu["mem_limit"] and gpu["cpu_limit"]
    volumes = {v["name"]: v for v in single["storage"]["extraVolumes"]}
    mounts = {m["name"]: m for m in single["storage"]["extraVolumeMounts"]}
    assert mounts["nbgrader-exchange"]["mountPath"] == "/srv/nbgrader/exchange"
    assert "persistentVolumeClaim" in volumes["nbgrader-exchange"]
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] > 0
