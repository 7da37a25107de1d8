"""pyproject.toml, environment.yml, Makefile and CI agree with each other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from course.diagrams import NAMES

try:
    import tomllib
except ImportError:  # Python 3.10: the test extra installs tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
#: Dependencies conda-forge does not carry: environment.yml's pip section has them.
PIP_ONLY = {"copydetect"}
CONDA_NAMES = {  # PyPI name -> conda-forge name, where they differ
    "torch": "pytorch",
    "playwright": "playwright-python",  # conda-forge "playwright" is the Node.js tool
    "msgpack": "msgpack-python",
    "docker": "docker-py",  # conda-forge names the Docker SDK so
}


def _name_and_spec(requirement: str) -> tuple[str, str]:
    match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", requirement)
    assert match, requirement
    return match.group(1).lower().replace("_", "-"), match.group(2).replace(" ", "")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_environment_yml_names_the_same_dependencies_as_pyproject():
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    assert extras["dev"] == ["gpu-course[test,e2e,docs,cluster]"]
    wanted = dict(
        _name_and_spec(r.split(";")[0])
        for r in [
            *project["dependencies"],
            *extras["test"],
            *extras["e2e"],
            *extras["docs"],
            *extras["cluster"],
        ]
    )
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = {}
    pip_section = []
    for item in env["dependencies"]:
        if isinstance(item, dict):
            pip_section.extend(item.get("pip", []))
        else:
            name, spec = _name_and_spec(item)
            conda[name] = spec
    for name, spec in wanted.items():
        if name in PIP_ONLY:
            assert f"{name}{spec}" in pip_section, f"environment.yml's pip lacks {name}"
            continue
        conda_name = CONDA_NAMES.get(name, name)
        assert conda_name in conda, f"environment.yml lacks {conda_name} ({name})"
        assert conda[conda_name] == spec, f"{conda_name}: {conda[conda_name]} != {spec}"
    extra = set(conda) - {CONDA_NAMES.get(n, n) for n in wanted} - {"python", "pip"}
    assert not extra, f"environment.yml has packages pyproject lacks: {extra}"
    assert "-e ." in pip_section, "environment.yml must install this repository"
    assert "conda-forge" in env["channels"]


def test_python_floor_matches():
    floor = _pyproject()["project"]["requires-python"]
    env = (ROOT / "environment.yml").read_text()
    assert floor == ">=3.10" and "python>=3.10" in env


def test_gpu_extra_and_console_script():
    project = _pyproject()["project"]
    assert any(
        r.startswith("cupy-cuda12x") for r in project["optional-dependencies"]["gpu"]
    )
    assert project["scripts"]["course"] == "autograder.cli:main"


def test_constraints_pin_the_cpu_torch_build():
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    assert "torch==2.13.0" in lines


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make test" in (ROOT / "README.md").read_text()
    assert "make demo" in (ROOT / "README.md").read_text()


def test_the_student_wheel_needs_no_jupyter_and_agrees_with_the_full_package():
    student = tomllib.loads((ROOT / "student" / "pyproject.toml").read_text())
    project = student["project"]
    assert student["tool"]["setuptools"]["packages"] == [
        "course",
        "course.gpumodel",
        "course.recorded",
        "course.figures",
        "course.locale.zh_CN.LC_MESSAGES",
    ]
    full = dict(_name_and_spec(r) for r in _pyproject()["project"]["dependencies"])
    mine = dict(_name_and_spec(r) for r in project["dependencies"])
    assert set(mine) == {
        "numpy",
        "torch",
        "matplotlib",
        "scikit-learn",
        "numba-cuda",
        "msgpack",
    }
    assert all(full[name] == spec for name, spec in mine.items())
    assert project["requires-python"] == _pyproject()["project"]["requires-python"]
    assert (ROOT / "student" / "course").resolve() == (ROOT / "course").resolve()


def test_python_m_course_runs_doctor_only(capsys):
    from course.__main__ import main

    assert main(["grade", "x"]) == 2
    assert "python -m autograder grade x" in capsys.readouterr().err
    assert main(["doctor"]) == 0
    assert "torch" in capsys.readouterr().out


def test_the_version_is_written_once():
    import importlib.metadata

    import course

    for toml in (ROOT / "pyproject.toml", ROOT / "student" / "pyproject.toml"):
        data = tomllib.loads(toml.read_text())
        assert "version" not in data["project"] and data["project"]["dynamic"] == [
            "version"
        ]
        dynamic = data["tool"]["setuptools"]["dynamic"]["version"]
        assert dynamic == {"attr": "course.__version__"}
    assert importlib.metadata.version("gpu-course") == course.__version__


def _readme_files() -> set[str]:
    """Files of the packages the README and the guides name."""
    guides = sorted((ROOT / "docs" / "guides").glob("*.md"))
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *guides])
    named = re.findall(r"\b((?:autograder|course)/[\w/.-]+\.(?:py|yaml|json))\b", text)
    return {n for n in named if (ROOT / n).is_file()}


@pytest.mark.slow
def test_the_wheel_holds_every_file_the_readme_points_to(tmp_path):
    import subprocess
    import sys
    import zipfile

    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    log = built.stdout + built.stderr
    assert "is absent from the `packages` configuration" not in log, log
    (wheel,) = tmp_path.glob("gpu_course-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = _readme_files()
    assert "autograder/jupyter/z2jh-values.yaml" in wanted
    assert not wanted - names, sorted(wanted - names)
    assert any(n.startswith("course/recorded/") and n.endswith(".json") for n in names)
    assert {f"course/figures/{n}.svg" for n in NAMES} <= names
