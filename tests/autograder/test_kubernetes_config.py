"""The Kubernetes settings (Zero to JupyterHub values, the course service and
ngshare manifests) and the images, read as the chart and Docker read them."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.lessons import REPO_ROOT

JUPYTER = REPO_ROOT / "autograder" / "jupyter"


def test_kubernetes_values_have_a_cpu_and_a_gpu_profile_limits_and_culler():
    import yaml

    values = yaml.safe_load((JUPYTER / "z2jh-values.yaml").read_text())
    single = values["singleuser"]
    assert single["memory"]["limit"] and single["cpu"]["limit"]
    profiles = {p["display_name"]: p for p in single["profileList"]}
    assert set(profiles) == {"CPU", "GPU"} and profiles["CPU"]["default"] is True
    gpu = profiles["GPU"]["kubespawner_override"]
    assert gpu["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert gpu["mem_limit"] and gpu["cpu_limit"]
    # no shared exchange volume: ngshare is the exchange
    assert "storage" not in single
    assert single["extraEnv"]["COURSE_NGSHARE_URL"].endswith("/services/ngshare")
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] > 0


def _kubernetes():
    import yaml

    values = yaml.safe_load((JUPYTER / "z2jh-values.yaml").read_text())
    manifests = list(yaml.safe_load_all((JUPYTER / "formgrader-k8s.yaml").read_text()))
    return values, {(m["kind"], m["metadata"]["name"]): m for m in manifests}


#: The keys the chart accepts at the levels these values use (the chart's
#: values.schema.yaml sets additionalProperties: false there): a typo is an
#: error at `helm install`, so it is one here.
CHART_KEYS = {
    (): {
        "hub",
        "singleuser",
        "cull",
        "proxy",
        "scheduling",
        "prePuller",
        "ingress",
        "imagePullSecret",
        "imagePullSecrets",
        "rbac",
        "fullnameOverride",
        "nameOverride",
        "custom",
        "global",
        "debug",
        "enabled",
        "httpRoute",
        "cluster",
        "apps",
        "Chart",
        "Release",
        "Capabilities",
        "Template",
    },
    ("hub",): {
        "config",
        "services",
        "loadRoles",
        "extraConfig",
        "extraEnv",
        "image",
        "db",
        "resources",
        "nodeSelector",
        "tolerations",
        "networkPolicy",
        "cookieSecret",
        "baseUrl",
        "extraFiles",
    },
    ("singleuser",): {
        "image",
        "defaultUrl",
        "extraEnv",
        "memory",
        "cpu",
        "profileList",
        "storage",
        "extraTolerations",
        "nodeSelector",
        "cmd",
        "extraResource",
        "networkPolicy",
    },
    ("singleuser", "storage"): {
        "type",
        "extraVolumes",
        "extraVolumeMounts",
        "homeMountPath",
        "capacity",
        "dynamic",
        "static",
        "extraLabels",
    },
    ("cull",): {
        "enabled",
        "timeout",
        "every",
        "users",
        "adminUsers",
        "removeNamedServers",
        "concurrency",
        "maxAge",
    },
}


def test_kubernetes_values_use_only_the_charts_keys():
    values, _ = _kubernetes()
    for path, allowed in CHART_KEYS.items():
        node = values
        for key in path:
            node = node.get(key, {})
        assert set(node) <= allowed, (path, set(node) - allowed)


def test_kubernetes_values_match_the_charts_own_schema_when_it_is_at_hand():
    """With ``Z2JH_CHART`` naming a checkout of the chart's folder (its
    ``values.schema.yaml`` and ``values.yaml``), the values merged into the
    chart's defaults, as helm merges them, validate against its schema."""
    import jsonschema
    import pytest
    import yaml

    chart = os.environ.get("Z2JH_CHART")
    if not chart:
        pytest.skip("Z2JH_CHART is not set (the chart is not in this repository)")
    schema = yaml.safe_load((Path(chart) / "values.schema.yaml").read_text())
    defaults = yaml.safe_load((Path(chart) / "values.yaml").read_text())
    values, _ = _kubernetes()

    def merge(base, top):
        if isinstance(base, dict) and isinstance(top, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in top.items()}}
        return top

    errors = jsonschema.validators.validator_for(schema)(schema).iter_errors(
        merge(defaults, values)
    )
    assert [f"{list(e.absolute_path)}: {e.message}" for e in errors] == []


def test_kubernetes_formgrader_is_a_hub_service_for_the_instructors_only():
    values, manifests = _kubernetes()
    service = values["hub"]["services"]["gpu-course"]
    k8s_service = manifests[("Service", "gpu-course-formgrader")]
    port = k8s_service["spec"]["ports"][0]["port"]
    assert service["url"] == f"http://gpu-course-formgrader:{port}"
    pod = manifests[("Deployment", "gpu-course-formgrader")]["spec"]["template"]
    assert k8s_service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    # the chart's hub NetworkPolicy admits pods with this label
    assert pod["metadata"]["labels"]["hub.jupyter.org/network-access-hub"] == "true"
    (container,) = pod["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    token = env["JUPYTERHUB_API_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert token == {"name": "hub", "key": "hub.services.gpu-course.apiToken"}
    assert env["JUPYTERHUB_SERVICE_NAME"]["value"] == "gpu-course"
    assert env["JUPYTERHUB_CLIENT_ID"]["value"] == "service-gpu-course"
    assert env["JUPYTERHUB_SERVICE_URL"]["value"].endswith(f":{port}")
    assert container["ports"][0]["containerPort"] == port
    roles = values["hub"]["loadRoles"]
    groups = values["hub"]["extraConfig"]["course-groups"]
    grade = roles["formgrade-gpu-course"]
    assert grade["scopes"] == ["access:services!service=gpu-course"]
    assert grade["groups"] == ["formgrade-gpu-course"]
    assert "access:services" not in str(roles["nbgrader-gpu-course"]["scopes"])
    for group in ("formgrade-gpu-course", "nbgrader-gpu-course"):
        assert f'"{group}"' in groups


def test_kubernetes_exchange_is_ngshare_and_no_student_pod_mounts_a_shared_volume():
    values, manifests = _kubernetes()
    single = values["singleuser"]
    service = values["hub"]["services"]["ngshare"]
    k8s_service = manifests[("Service", "ngshare")]
    port = k8s_service["spec"]["ports"][0]["port"]
    assert service["url"] == f"http://ngshare:{port}"
    pod = manifests[("Deployment", "ngshare")]["spec"]["template"]
    assert k8s_service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert pod["metadata"]["labels"]["hub.jupyter.org/network-access-hub"] == "true"
    (container,) = pod["spec"]["containers"]
    assert container["command"][:3] == ["python", "-m", "ngshare"]
    env = {e["name"]: e for e in container["env"]}
    token = env["JUPYTERHUB_API_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert token == {"name": "hub", "key": "hub.services.ngshare.apiToken"}
    assert env["JUPYTERHUB_SERVICE_PREFIX"]["value"] == "/services/ngshare/"
    assert env["JUPYTERHUB_SERVICE_URL"]["value"].endswith(f":{port}")
    assert container["ports"][0]["containerPort"] == port
    # students and the course service both reach it; nothing else is shared
    formgrader = manifests[("Deployment", "gpu-course-formgrader")]["spec"]
    fenv = {
        e["name"]: e.get("value")
        for e in formgrader["template"]["spec"]["containers"][0]["env"]
    }
    assert fenv["COURSE_NGSHARE_URL"].endswith("/services/ngshare")
    assert single["extraEnv"]["COURSE_NGSHARE_URL"].endswith("/services/ngshare")
    assert fenv["JUPYTERHUB_DEFAULT_URL"] == "/formgrader"  # its own tab
    for (kind, name), manifest in manifests.items():
        if kind == "PersistentVolumeClaim":
            assert manifest["spec"]["accessModes"] == ["ReadWriteOnce"], name
    claims = {v["persistentVolumeClaim"]["claimName"] for v in pod["spec"]["volumes"]}
    assert claims == {"ngshare"}
    # KubeSpawner.environment set in extraConfig or a profile would replace
    # singleuser.extraEnv instead of adding to it
    for snippet in values["hub"]["extraConfig"].values():
        assert ".environment" not in snippet
    for profile in single["profileList"]:
        assert "environment" not in profile.get("kubespawner_override", {})


def test_the_hub_s_major_version_is_one_everywhere():
    """The venv, the images, ngshare's environment and the chart's hub run one
    JupyterHub major version (5.x: the chart's 4.x releases ship it)."""
    import re
    from importlib.metadata import version

    import pytest

    wanted = "jupyterhub>=5,<6"
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert f'"{wanted}"' in pyproject
    assert f"  - {wanted}" in (REPO_ROOT / "environment.yml").read_text()
    for name in ("requirements-cpu.txt", "requirements-ngshare.txt"):
        lines = (JUPYTER / "images" / name).read_text().splitlines()
        assert wanted in lines, name
    values = (JUPYTER / "z2jh-values.yaml").read_text()
    assert re.search(r'--version "\^4"', values)
    assert "Chart 4.x runs\n# JupyterHub 5.x" in values
    try:
        installed = version("jupyterhub")
    except Exception:  # noqa: BLE001 - no hub in this environment
        pytest.skip("jupyterhub is not installed")
    assert installed.split(".")[0] == "5", installed


def test_kubernetes_gpu_profile_tolerates_gpu_nodes_and_runs_the_gpu_image():
    values, _ = _kubernetes()
    profiles = {p["display_name"]: p for p in values["singleuser"]["profileList"]}
    gpu = profiles["GPU"]["kubespawner_override"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in (
        gpu["tolerations"]
    )
    assert "gpu" in gpu["image"] and "image" not in profiles["CPU"]


def test_the_images_dockerfile_copies_what_exists_and_pins_the_courses_ranges():
    import re

    images = JUPYTER / "images"
    dockerfile = (images / "Dockerfile").read_text()
    copied = re.findall(r"^COPY (?:--\S+ )*(.+?) \S+$", dockerfile, re.M)
    sources = [s for line in copied for s in line.split() if s != "."]
    assert sources, dockerfile
    for source in sources:
        pattern = source.replace("${FLAVOUR}", "*")
        assert list(REPO_ROOT.glob(pattern)), f"COPY {source}: no such file"
    assert "--target" in dockerfile and "AS grader" in dockerfile
    try:
        import tomllib
    except ImportError:  # Python 3.10: the test extra installs tomli
        import tomli as tomllib

    declared = {
        re.split(r"[<>=\[ ;]", d)[0]: d
        for d in tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"][
            "dependencies"
        ]
    }
    for line in (images / "requirements-cpu.txt").read_text().splitlines():
        name = re.split(r"[<>=\[ ;]", line)[0]
        if line and not line.startswith("#") and name in declared:
            assert line == declared[name], (line, declared[name])
    # the instructor settings the grader stage points to are in the repository
    config_dir = re.search(r"JUPYTER_CONFIG_DIR=/opt/gpu-course/(\S+)", dockerfile)
    assert (REPO_ROOT / config_dir.group(1) / "nbgrader_config.py").is_file()
