"""The user image's Python layer, built in a fresh venv where Docker is not at hand.

``make image-check`` (``python -m autograder.publish.image_check [--flavour cpu]``)
does what ``autograder/jupyter/images/Dockerfile``'s student stage does, into a
new virtual environment instead of an image: ``pip install`` of the same
requirements file and the student wheel, under the course's constraints; the
same settings files copied into the environment's own Jupyter config folder
(``<venv>/etc/jupyter``, which Jupyter reads as the image reads
``/usr/local/etc/jupyter``). Then it checks what a student's server would
have: ``course``, nbgrader, ngshare-exchange (installed ``--no-deps``, as the
image does) and nbgitpuller import, nbgrader's lab extension is there with
the assignment list on and formgrader off, and the server extensions agree.
Needs the package index (PyPI); it takes minutes, so it is not part of
``make test``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.lessons import REPO_ROOT

IMAGES = REPO_ROOT / "autograder" / "jupyter" / "images"
STUDENT = REPO_ROOT / "autograder" / "jupyter" / "student"

#: What the Dockerfile's student stage copies into /usr/local/etc/jupyter.
SETTINGS = {
    STUDENT / "nbgrader_config.py": "nbgrader_config.py",
    STUDENT / "labconfig" / "page_config.json": "labconfig/page_config.json",
    IMAGES / "jupyter_server_config.json": "jupyter_server_config.json",
}


def _run(cmd: list[str], **kw) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode:
        raise SystemExit(
            f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout}{done.stderr}"
        )
    return done.stdout + done.stderr


def build(venv: Path, flavour: str) -> None:
    """The student stage's pip install and settings, into ``venv``."""
    _run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    wheel = Path(tempfile.mkdtemp()) / "student"
    wheel.mkdir()
    shutil.copy(REPO_ROOT / "student" / "pyproject.toml", wheel)
    shutil.copytree(
        REPO_ROOT / "course",
        wheel / "course",
        ignore=shutil.ignore_patterns("__pycache__"),
    )  # as the COPY does
    _run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-c",
            str(REPO_ROOT / "constraints.txt"),
            "-r",
            str(IMAGES / f"requirements-{flavour}.txt"),
            str(wheel),
        ]
    )
    shutil.rmtree(wheel.parent, ignore_errors=True)
    nodeps = str(IMAGES / "requirements-nodeps.txt")
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", "-r", nodeps])
    config = venv / "etc" / "jupyter"
    for source, target in SETTINGS.items():
        (config / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, config / target)


#: What the GPU flavour adds: CuPy imports (it does without a GPU), and
#: numba-cuda brought CUDA 12's libraries.
GPU_CHECK = """
import importlib.metadata as m, cupy, numba.cuda
names = [d.metadata["Name"] for d in m.distributions()]
libs = [n for n in names if n.startswith("nvidia-") and "cu12" in n]
assert libs, "no CUDA 12 libraries"
print(f"cupy {cupy.__version__}, numba-cuda, {len(libs)} CUDA 12 libraries")
"""


def check(venv: Path, flavour: str = "cpu") -> list[str]:
    """What a student's server in the image would have; returns problems."""
    bin_dir = venv / "bin"
    python = str(bin_dir / "python")
    problems = []
    out = _run([python, "-c", "import course, nbgrader; print(course.__version__)"])
    print(f"  course {out.strip()} and nbgrader import")
    hub = "import ngshare_exchange, nbgitpuller; print('ngshare-exchange, nbgitpuller')"
    env = {**os.environ, "USER": os.environ.get("USER", "jovyan")}  # as the image
    print("  " + _run([python, "-c", hub], env=env).strip() + " import")
    if flavour == "gpu":
        print("  " + _run([python, "-c", GPU_CHECK]).strip().splitlines()[-1])
    lab = _run([str(bin_dir / "jupyter"), "labextension", "list"])
    server = _run([str(bin_dir / "jupyter"), "server", "extension", "list"])
    wanted = {
        "@jupyter/nbgrader:assignment-list": "enabled",
        "@jupyter/nbgrader:formgrader": "disabled",
        "@jupyter/nbgrader:create-assignment": "disabled",
    }
    if "@jupyter/nbgrader" not in lab:
        problems.append("nbgrader's lab extension is not installed")
    for plugin, state in wanted.items():
        disabled = plugin in lab.split("Disabled extensions:")[-1]
        if (state == "disabled") != disabled:
            problems.append(f"{plugin} should be {state}")
    for name, state in {
        "nbgrader.server_extensions.assignment_list": "enabled",
        "nbgrader.server_extensions.formgrader": "disabled",
        "nbgitpuller": "enabled",
    }.items():
        found = re.search(rf"{re.escape(name)}\s+(\S*)\s*(enabled|disabled)", server)
        if found is None or found.group(2) != state:
            problems.append(f"the server extension {name} should be {state}")
    print(f"  lab and server extensions: {len(problems)} problem(s)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flavour", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--keep", type=Path, help="build the venv here and keep it")
    args = parser.parse_args(argv)
    venv = args.keep or Path(tempfile.mkdtemp()) / "image"
    start = time.perf_counter()
    print(f"building the {args.flavour} image's Python layer in {venv} ...")
    try:
        build(venv, args.flavour)
        print(f"  installed in {time.perf_counter() - start:.0f} s")
        problems = check(venv, args.flavour)
    finally:
        if args.keep is None:
            shutil.rmtree(venv.parent, ignore_errors=True)
    for problem in problems:
        print(f"problem: {problem}")
    print("image check: " + ("passed" if not problems else "FAILED"))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
