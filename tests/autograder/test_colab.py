"""The badge and setup cell every notebook opens with (Colab and plain Jupyter)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.lessons import REPO_ROOT, colab, lesson_names


@pytest.mark.parametrize("lesson", lesson_names())
def test_every_notebook_opens_with_badge_and_setup(lesson):
    nb = nbformat.read(
        REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb", as_version=4
    )
    badge, setup = nb.cells[0], nb.cells[1]
    assert badge.cell_type == "markdown"
    assert colab.colab_url(lesson) in badge.source
    assert badge.source.startswith("[![Open In Colab]")
    assert setup.cell_type == "code" and setup.source == colab.setup_source(lesson)
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


# The setup cell for real: a locally built student wheel, served over HTTP, into
# a fresh virtual environment that holds what Colab preinstalls.


@pytest.fixture(scope="module")
def colab_runtime(tmp_path_factory):
    """A fresh venv that sees this machine's torch, NumPy, matplotlib,
    scikit-learn and pip (what Colab preinstalls) but not the course; and the
    student wheel, served from a local HTTP server. Yields (python, wheel URL,
    server URL)."""
    import functools
    import http.server
    import threading
    import venv

    import torch

    from autograder.publish.bundle import build_wheel

    root = tmp_path_factory.mktemp("colab")
    wheel = build_wheel(root / "wheels")
    venv.create(root / "venv", with_pip=False)
    python = root / "venv" / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # The preinstalled stack: every package of this environment except the
    # course's own, linked into one folder that the venv puts on its path.
    here = Path(torch.__file__).resolve().parents[1]
    stack = root / "preinstalled"
    stack.mkdir()
    for entry in here.iterdir():
        name = entry.name.lower()
        if name.startswith(("course", "autograder", "gpu_course", "__editable__")):
            continue
        if name.endswith(".pth"):
            continue
        (stack / entry.name).symlink_to(entry)
    (site / "colab-preinstalled.pth").write_text(f"{stack}\n", encoding="utf-8")
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(wheel.parent)
    )
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield python, f"{base}/{wheel.name}", base
    finally:
        server.shutdown()


def _in_runtime(python, code: str, package: str, cwd: Path):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "COURSE_PACKAGE": package,
        "MPLBACKEND": "Agg",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INDEX": "1",  # nothing but the local server
    }
    return subprocess.run(
        [python, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_setup_cell_installs_the_served_wheel_then_the_lesson_runs(
    colab_runtime, tmp_path
):
    python, wheel_url, base = colab_runtime
    before = _in_runtime(
        python, "import importlib.util as u; print(u.find_spec('course'))", "", tmp_path
    )
    assert before.stdout.strip() == "None", before.stderr  # a fresh runtime
    # A wheel the server does not have: the cell stops with pip's error.
    missing = f"{base}/gpu_course_student-9.9.9-py3-none-any.whl"
    failed = _in_runtime(python, colab.setup_source("01_devices"), missing, tmp_path)
    assert failed.returncode != 0
    assert "CalledProcessError" in failed.stderr and "404" in failed.stderr
    nb = nbformat.read(
        REPO_ROOT / "notebooks" / "01_devices" / "01_devices.ipynb", as_version=4
    )
    setup = nb.cells[1].source
    first = []  # the lesson's cells up to its first exercise
    for cell in nb.cells[2:]:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            break
        if cell.cell_type == "code":
            first.append(cell.source)
    code = "\n\n".join([setup, *first, "import course; print('FROM', course.__file__)"])
    ran = _in_runtime(python, code, wheel_url, tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert f"Installing the course helpers from {wheel_url}" in ran.stdout
    assert "torch device for lessons" in ran.stdout  # course doctor
    assert "CuPy installed:" in ran.stdout  # the lesson's own cells ran
    installed = ran.stdout.split("FROM", 1)[1].strip()
    assert installed.startswith(str(Path(python).parent.parent))  # into the venv
    # Run again: the course is there now, so the cell installs nothing.
    again = _in_runtime(python, setup, wheel_url, tmp_path)
    assert again.returncode == 0 and again.stdout == "", again.stderr


def test_a_lesson_that_needs_more_installs_it_in_the_same_cell():
    plain, kernels = colab.setup_source("01_devices"), colab.setup_source("09_kernels")
    compile(kernels, "setup-cell", "exec")
    assert "numba-cuda" in kernels and "numba-cuda" not in plain
    assert colab.lesson_packages("10_fusion") == ("numba-cuda",)
    assert colab.package_spec(package="https://x.org/w.whl") == "https://x.org/w.whl"
