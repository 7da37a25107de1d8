"""The Landlock sandbox around grading kernels: what a submission can still reach."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from pathlib import Path

import pytest

from autograder.classgrade import grade_class
from autograder.grading.kernel import sandbox
from autograder.lessons import REPO_ROOT, find_lesson, source_to_notebook
from tests.lesson_helpers import submission

LESSON = "01_devices"
needs_landlock = pytest.mark.skipif(
    sandbox.abi() == 0, reason=f"no Landlock here: {sandbox.status()}"
)


def test_status_names_what_is_confined():
    line = sandbox.status()
    if sandbox.abi() == 0:
        assert line.startswith("not confined: ")
    else:
        assert line.startswith(f"confined with Landlock ABI {sandbox.abi()} (files")
        assert ("TCP" in line) == (sandbox.abi() >= 4)


def test_policy_hides_the_course_folder_but_not_the_course_package(tmp_path):
    connection = tmp_path / "kernel.json"
    connection.write_text(json.dumps({"shell_port": 5001, "hb_port": 5002, "ip": "x"}))
    policy = sandbox.kernel_policy(tmp_path, connection)
    assert policy.write == [str(tmp_path.resolve())]
    assert str(REPO_ROOT / "course") in policy.read
    assert str(connection.resolve()) in policy.read
    for path in policy.read:
        assert not (REPO_ROOT / "autograder").is_relative_to(path), path
        assert not Path(path).is_relative_to(REPO_ROOT / "autograder"), path
    assert sorted(policy.bind_ports) == [0, 5001, 5002]
    assert "/dev/null" in policy.devices and "/dev/shm" not in policy.devices


def test_an_installed_course_keeps_site_packages_readable(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    (site / "course").mkdir(parents=True)
    monkeypatch.setattr(sandbox, "_package_dir", lambda name: site / name)
    monkeypatch.setattr(sandbox.sys, "path", [str(site)])
    read = sandbox.kernel_policy(tmp_path / "job", None).read
    assert str(site) in read and str(site / "course") in read


def test_enforce_refuses_without_landlock():
    with pytest.raises(sandbox.SandboxError, match="not available"):
        sandbox.enforce(sandbox.Policy(), version=0)


PROBE = """
import json, os, socket, sys
out = {}
def attempt(name, action):
    try:
        action()
        out[name] = "reached"
    except OSError as exc:
        out[name] = type(exc).__name__
attempt("secret", lambda: open(sys.argv[1]).read())
attempt("autograder", lambda: open(sys.argv[2]).read())
attempt("write-here", lambda: open("mine.txt", "w").write("x"))
attempt("write-outside", lambda: open(sys.argv[1] + ".new", "w").write("x"))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[3]))))
attempt("signal-parent", lambda: os.kill(int(sys.argv[4]), 0))
import numpy, course.checks
out["imports"] = "reached"
print(json.dumps(out))
"""


@needs_landlock
def test_a_confined_process_reaches_only_its_folder_and_python(tmp_path):
    import subprocess

    secret = tmp_path / "secret.txt"
    secret.write_text("the answers")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            "import sys\nfrom autograder.grading.kernel import sandbox\n"
            "sandbox.confine_kernel([])\n" + PROBE
        )
        args = [
            secret,
            REPO_ROOT / "autograder" / "grading" / "compare.py",
            port,
            os.getpid(),
        ]
        done = subprocess.run(
            [sys.executable, "-c", code, *map(str, args)],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["secret"] == out["autograder"] == "PermissionError"
    assert out["write-here"] == "reached" and (scratch / "mine.txt").exists()
    assert out["write-outside"] == "PermissionError"
    assert not Path(str(secret) + ".new").exists()
    if sandbox.abi() >= 4:
        assert out["connect"] == "PermissionError"
    if sandbox.abi() >= 6:
        assert out["signal-parent"] == "PermissionError"
    assert out["imports"] == "reached"


SNOOP = """
import os as _os, pathlib as _pathlib, socket as _socket
def _attempt(name, action):
    try:
        action()
        print(f"SNOOP {{name}}: reached")
    except Exception as exc:
        print(f"SNOOP {{name}}: {{type(exc).__name__}}")
_here = _pathlib.Path.cwd()
print(f"SNOOP cwd-files: {{len(list(_here.iterdir()))}}")
_root = _pathlib.Path({course!r})
_attempt("gradebook", lambda: (_root / "gradebook.db").read_bytes())
_source = _root / "solutions" / "{lesson}" / "{lesson}.ipynb"
_attempt("source", lambda: _source.read_text())
_attempt("reference", lambda: [open(p).read() for p in
         _pathlib.Path({cache!r}).glob("*.json")] or open({cache!r}))
_attempt("classmate", lambda: open({classmate!r}).read())
_attempt("write-outside", lambda: open({outside!r}, "w").write("x"))
_attempt("network", lambda: _socket.create_connection(("127.0.0.1", {port})).close())
"""


def _snooping_class(folder: Path, port: int, out: Path) -> tuple[Path, Path]:
    """Two students; one answers correctly but snoops first."""
    classmate = submission(LESSON, folder / f"bea_{LESSON}.ipynb")
    outside = folder.parent / "planted.txt"
    reference = source_to_notebook(find_lesson(LESSON))
    cell = next(
        c
        for c in reference.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "01-pick-device"
    )
    from autograder.grading.reference import cache_dir
    from autograder.lessons.scratch import cached_course

    snoop = SNOOP.format(
        lesson=LESSON,
        classmate=str(classmate),
        outside=str(outside),
        port=port,
        course=str(cached_course(LESSON)),  # the lesson's gradebook and source
        cache=str(cache_dir()),
    )
    submission(
        LESSON, folder / f"sam_{LESSON}.ipynb", {"01-pick-device": snoop + cell.source}
    )
    return classmate, outside


def _snoop_lines(report) -> dict[str, str]:
    sam = next(r for r in report.results if r.student == "sam")
    html = Path(sam.feedback).read_text(encoding="utf-8")
    # The printed lines, not the code that prints them (also on the page).
    return dict(re.findall(r"SNOOP ([a-z-]+): (\w+)", html))


@pytest.mark.slow
@needs_landlock
def test_graded_kernels_cannot_snoop_and_grades_do_not_change(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        out = tmp_path / "grading"  # one job folder path for both runs
        _, outside = _snooping_class(folder, port, out)
        confined = grade_class(folder, LESSON, out_dir=out, jobs=1, progress=False)
        snooped = _snoop_lines(confined)
        open_ = grade_class(
            folder,
            LESSON,
            out_dir=out,
            jobs=1,
            progress=False,
            sandbox=False,
            force=True,
        )
        snooped_open = _snoop_lines(open_)
    assert confined.kernels == sandbox.status()
    assert open_.kernels == "not confined: --no-sandbox"
    assert snooped["cwd-files"] == snooped_open["cwd-files"] == "0"  # an empty folder
    hidden = ("PermissionError", "FileNotFoundError")  # refused, or out of sight
    assert snooped["gradebook"] in hidden and snooped["source"] in hidden
    # refused, or hidden (a root grader's kernel runs as nobody, and the closed
    # folders above the test's own are not in its sight)
    assert snooped["classmate"] in ("PermissionError", "FileNotFoundError")
    assert snooped["write-outside"] in ("PermissionError", "FileNotFoundError")
    assert snooped["reference"] in hidden
    if sandbox.abi() >= 4:
        assert snooped["network"] == "PermissionError"
    # Without the sandbox the same code reaches all of it: the probe can tell.
    del snooped_open["cwd-files"]
    assert set(snooped_open.values()) == {"reached"}
    outside.unlink()
    scores = {r.student: (r.status, r.score) for r in confined.results}
    assert scores == {r.student: (r.status, r.score) for r in open_.results}
    # sam's snooping runs as written (nothing is refused for what it imports) and
    # the answer beneath it is correct: full marks, with and without confinement.
    assert scores == {"bea": ("graded", 12.0), "sam": ("graded", 12.0)}
    # The same verdicts test by test, with and without the confinement.
    tests = {r.student: r.per_question for r in confined.results}
    assert tests == {r.student: r.per_question for r in open_.results}


@pytest.mark.slow
@needs_landlock
@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_confined_kernels_run_lesson_code_but_cannot_read_outside(
    warm, tmp_path, monkeypatch
):
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    from autograder.grading.kernel import warmkernel

    if warm and not warmkernel.supported():
        pytest.skip("warm kernels fork: Linux only")
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.delenv("MPLBACKEND", raising=False)  # inline figures, as in class
    cells = [
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])",
        f"open({str(secret)!r}).read()",
        "import numpy as np\nfrom course.checks import check_close\n"
        "check_close(np.ones(3), np.ones(3), name='x')\nprint(np.ones(3).sum())",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    before = dict(warmkernel.LAUNCHED)
    NotebookClient(
        nb,
        timeout=60,
        kernel_name="python3",
        allow_errors=True,
        kernel_manager_class=warmkernel.manager_class(),
        config=Config(WarmKernelManager={"warm": warm, "confine": True}),
        resources={"metadata": {"path": str(scratch)}},
    ).execute()
    if warmkernel._SERVER is not None:
        warmkernel._SERVER.close()
        warmkernel._SERVER = None
    kind = "warm" if warm else "cold"
    assert warmkernel.LAUNCHED[kind] == before[kind] + 1
    assert warmkernel.LAUNCHED["confined"] == before["confined"] + 1
    assert "image/png" in str(nb.cells[0].outputs)
    assert nb.cells[1].outputs[0]["ename"] == "PermissionError"
    assert nb.cells[2].outputs[-1]["text"] == "3.0\n"
