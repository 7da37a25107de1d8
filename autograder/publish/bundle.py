"""The student bundle: everything a student of a graded class may see, nothing more.

``course student-bundle`` (``make student-bundle``) writes
``dist/gpu-course-student-<version>.zip`` holding:

- ``notebooks/``: the student edition, exactly as released (no answers, no
  hidden tests, no outputs);
- ``data/recorded/``: the GPU results recorded on real hardware that the
  lessons show (the lessons' other data are generated, or ship with
  scikit-learn: nothing is downloaded);
- ``wheels/``: the student wheel (the ``course`` library alone, no grader);
- ``README.md``: how to install and start.

Every file is checked before the archive is written: no solution or hidden-test
marker, no reference name, no sample answer, no grader module, no outputs in
a notebook. A bundle that fails the check is not written.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder.lessons import REPO_ROOT
from autograder.publish.leaks import (
    notebook_leaks,
    scan_texts,
    student_edition_forbidden,
    visible_text,
)

STUDENT_README = """\
# GPU acceleration with Python: student bundle

This folder holds the course's notebooks and the small library they import.
Your instructor grades your work; the answers and the grading tests are not
here.

## Start

    python -m venv .venv
    .venv/bin/pip install wheels/*.whl {jupyter}
    .venv/bin/python -m course doctor               # what your machine has
    .venv/bin/jupyter lab notebooks/

The wheel brings NumPy, PyTorch, matplotlib and scikit-learn. nbgrader adds
JupyterLab's Validate button (it runs the visible tests of a notebook, as the
test cells do) and, where your instructor runs an nbgrader exchange (a shared
JupyterHub), the Assignments tab that fetches and submits lessons. On Windows,
use `.venv\\Scripts\\pip` and `.venv\\Scripts\\jupyter`, and name the wheel
file in full (`wheels\\gpu_course_student-...whl`: cmd and PowerShell do not
expand `*`).

On a machine with an NVIDIA GPU, also install CuPy for your CUDA version
(`pip install cupy-cuda12x`, or `cupy-cuda13x`). Without a GPU every lesson
runs on the CPU and shows GPU figures recorded on real hardware, labelled with
the hardware and the date.

The same notebooks in Chinese are in `notebooks-zh/` (中文版: 每一课的讲解是中文的，
代码、测试和评分与英文版相同); their checks' messages are in Chinese too.

Each notebook has "Task N.M" cells: replace the stub with your code, then run
the test cell after it, which says what to fix. Submit the notebook the way
your instructor asked (the nbgrader assignment list, a learning platform, or
e-mail).
"""


def _jupyter_pins() -> str:
    """JupyterLab and nbgrader as the course's ``pyproject.toml`` pins them."""
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pins = re.findall(r'"((?:jupyterlab|nbgrader)\s*[<>=!~][^"]*)"', text)
    return " ".join(f'"{pin.replace(" ", "")}"' for pin in pins)


class BundleError(RuntimeError):
    """The bundle would hold something a student must not see."""


def build_wheel(out: Path) -> Path:
    """Build the student wheel (``student/``) into ``out``; return its path."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "student"
        source.mkdir()
        shutil.copyfile(
            REPO_ROOT / "student" / "pyproject.toml", source / "pyproject.toml"
        )
        (source / "course").symlink_to(REPO_ROOT / "course")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(out),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
    (wheel,) = Path(out).glob("gpu_course_student-*.whl")
    return wheel


def _forbidden_text() -> dict[str, str]:
    """What no file in the bundle may contain: the leak scan's list
    (:func:`autograder.publish.leaks.student_edition_forbidden`) less what the
    student edition and the student library hold anyway, grader module names,
    and a line of each sample answer that neither holds (found in a bundle, it
    can only be a leak)."""
    from autograder.samples import all_samples

    shipped = "\n".join(
        visible_text(p.suffix, p.read_text(encoding="utf-8"))
        for p in [
            *(REPO_ROOT / "notebooks").rglob("*.ipynb"),
            *(REPO_ROOT / "notebooks-zh").rglob("*.ipynb"),
            *(REPO_ROOT / "course").rglob("*.py"),
        ]
    )  # notebooks as their decoded strings: quotes unescaped
    # (the student library may share a line with an answer: `index = device.index`)
    found = {k: v for k, v in student_edition_forbidden().items() if k not in shipped}
    found["autograder."] = "a grader module name"
    for sample in all_samples():
        for code in sample.answers.values():
            own = [
                line.strip()
                for line in code.splitlines()
                if len(line.strip()) > 30 and line.strip() not in shipped
            ]
            found.update({line: f"a line of sample {sample.name}" for line in own[:1]})
    return found


def check_files(root: Path) -> list[str]:
    """Everything under ``root`` a student must not receive."""
    problems = []
    forbidden = _forbidden_text()
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file()):
        name = path.relative_to(root).as_posix()
        if name.startswith(("solutions/", "autograder/", "tests/")):
            problems.append(f"{name}: grader or answer folder")
            continue
        if path.suffix == ".ipynb":
            problems += [f"{name}: {p}" for p in notebook_leaks(path)]
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as wheel:
                members = wheel.namelist()
                texts = {m: wheel.read(m).decode("utf-8", "replace") for m in members}
            problems += [
                f"{name}: holds {m}" for m in members if m.split("/")[0] == "autograder"
            ]
        else:
            texts = {name: path.read_text(encoding="utf-8", errors="replace")}
        problems += scan_texts(
            {m: (t, visible_text(Path(m).suffix, t)) for m, t in texts.items()},
            forbidden,
        )
    return problems


def build_bundle(out_dir: Path | None = None, log=print) -> Path:
    """Write the student bundle; return the archive's path.

    Raises:
        BundleError: a file would leak an answer, a hidden test or the grader.
    """
    from importlib.metadata import version

    out_dir = Path(out_dir or REPO_ROOT / "dist")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "gpu-course-student"
        shutil.copytree(REPO_ROOT / "notebooks", root / "notebooks")
        if (REPO_ROOT / "notebooks-zh").is_dir():  # the Chinese edition
            shutil.copytree(REPO_ROOT / "notebooks-zh", root / "notebooks-zh")
        shutil.copytree(
            REPO_ROOT / "course" / "recorded",
            root / "data" / "recorded",
            ignore=shutil.ignore_patterns(".gitkeep"),
        )
        log("building the student wheel...")
        build_wheel(root / "wheels")
        readme = STUDENT_README.format(jupyter=_jupyter_pins())
        (root / "README.md").write_text(readme, encoding="utf-8")
        problems = check_files(root)
        if problems:
            raise BundleError("the student bundle would leak:\n" + "\n".join(problems))
        archive = out_dir / f"gpu-course-student-{version('gpu-course')}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                bundle.write(path, Path(root.name) / path.relative_to(root))
    log(f"student bundle: {archive}")
    return archive
