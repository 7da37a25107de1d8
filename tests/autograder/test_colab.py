"""The badge and setup cell every notebook opens with (Colab and plain Jupyter)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import subprocess
import sys

import nbformat
import pytest

from autograder import colab
from autograder.lessons import REPO_ROOT, lesson_names


@pytest.mark.parametrize("lesson", lesson_names())
def test_every_notebook_opens_with_badge_and_setup(lesson):
    nb = nbformat.read(
        REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb", as_version=4
    )
    badge, setup = nb.cells[0], nb.cells[1]
    assert badge.cell_type == "markdown"
    assert colab.colab_url(lesson) in badge.source
    assert badge.source.startswith("[![Open In Colab]")
    assert setup.cell_type == "code" and setup.source == colab.setup_source()
    assert "nbgrader" not in setup.metadata  # never graded, never an answer
    assert nb.cells[2].source.startswith("# Day ")


def test_colab_url_comes_from_the_one_configured_place():
    url = colab.colab_url("01_devices", "https://github.com/someone/fork", "dev")
    assert url == (
        "https://colab.research.google.com/github/someone/fork/blob/dev/"
        "notebooks/01_devices/01_devices.ipynb"
    )
    assert colab.REPOSITORY in colab.package_spec()
    assert colab.package_spec("https://github.com/a/b", "x") == (
        "git+https://github.com/a/b@x#subdirectory=student"
    )
    with pytest.raises(ValueError, match="GitHub repositories only"):
        colab.colab_url("01_devices", "https://gitlab.com/a/b")


def _run_setup(monkeypatch, installed: bool):
    calls = []

    def fake_run(cmd, check):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0)

    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args):
        if name == "course" and not installed:
            return None
        return real_find_spec(name, *args)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(colab.setup_source(), "setup-cell", "exec"), {})
    return calls, out.getvalue()


def test_setup_cell_does_nothing_where_the_course_is_installed(monkeypatch):
    calls, printed = _run_setup(monkeypatch, installed=True)
    assert calls == [] and printed == ""


def test_setup_cell_installs_then_reports_the_device_elsewhere(monkeypatch):
    calls, printed = _run_setup(monkeypatch, installed=False)
    assert calls == [
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            colab.package_spec(),
        ]
    ]
    assert printed.startswith("Installing the course helpers from git+https://")
    assert "torch device for lessons" in printed  # course doctor


def test_setup_cell_stops_with_pips_error_when_install_fails(monkeypatch):
    def failing_run(cmd, check):
        raise subprocess.CalledProcessError(1, cmd)

    monkeypatch.setattr(subprocess, "run", failing_run)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(subprocess.CalledProcessError):
        exec(compile(colab.setup_source(), "setup-cell", "exec"), {})
