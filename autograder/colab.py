"""The first two cells of every notebook: an "Open in Colab" badge and a setup cell.

Both are built here, from :data:`REPOSITORY` and :data:`BRANCH`: the one place to
change when the course lives in another repository (a fork, a mirror). Run
``make release`` after changing them.

The setup cell does nothing where the ``course`` package is importable (a local
install, a GPU box, the grader). Elsewhere (a fresh Colab runtime) it installs
the student library (``student/``: ``course`` alone, no grader) from the
repository with ``--no-deps`` (Colab already has NumPy,
PyTorch, matplotlib and scikit-learn; installing Jupyter packages there would
replace the ones Colab runs on), then prints ``course doctor``.
"""

from __future__ import annotations

from typing import Any

REPOSITORY = "https://github.com/gpu-course/gpu-acceleration-course"
"""The course's public git repository (https URL, no trailing slash)."""
BRANCH = "main"

BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"


def colab_url(lesson: str, repository: str = REPOSITORY, branch: str = BRANCH) -> str:
    """Colab's address for the student notebook of ``lesson``."""
    prefix = "https://github.com/"
    if not repository.startswith(prefix):
        raise ValueError(f"Colab opens GitHub repositories only, not {repository!r}")
    path = repository[len(prefix) :].rstrip("/")
    return (
        f"https://colab.research.google.com/github/{path}/blob/{branch}/"
        f"notebooks/{lesson}/{lesson}.ipynb"
    )


def badge_source(lesson: str) -> str:
    """The Markdown of the badge cell."""
    return f"[![Open In Colab]({BADGE_IMAGE})]({colab_url(lesson)})"


def package_spec(repository: str = REPOSITORY, branch: str = BRANCH) -> str:
    """What ``pip install`` is given on Colab: the student wheel's folder only
    (``student/``: the ``course`` library, never the grader)."""
    return f"git+{repository}@{branch}#subdirectory=student"


def setup_source() -> str:
    """The code of the setup cell (the same in every notebook)."""
    return f'''\
# Setup: does nothing where the course is installed (your machine, a GPU box).
# On Colab it installs the course's helpers, then shows your hardware. For a GPU
# there: Runtime > Change runtime type > GPU, then run this cell again.
import importlib.util
import subprocess
import sys

COURSE_PACKAGE = "{package_spec()}"
if importlib.util.find_spec("course") is None:
    print("Installing the course helpers from", COURSE_PACKAGE)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         COURSE_PACKAGE],
        check=True,
    )
    importlib.invalidate_caches()
    from course.doctor import doctor_text

    print(doctor_text())'''


def first_cells(lesson: str) -> list[Any]:
    """The badge and setup cells, with stable ids, to put before a lesson's own."""
    import nbformat

    badge = nbformat.v4.new_markdown_cell(badge_source(lesson))
    badge["id"] = "colab-badge"
    setup = nbformat.v4.new_code_cell(setup_source())
    setup["id"] = "course-setup"
    return [badge, setup]
