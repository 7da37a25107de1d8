"""The first two cells of every notebook: an "Open in Colab" badge and a setup cell.

Both are built here, from :data:`REPOSITORY`, :data:`BRANCH` and
:data:`PACKAGE`: the one place to change when the course lives in another
repository (a fork, a mirror) or its student wheel is published at a URL. Run
``make release`` after changing them.

The setup cell does nothing where the ``course`` package is importable (a local
install, a GPU box, the grader). Elsewhere (a fresh Colab runtime) it installs
the student library (``student/``: ``course`` alone, no grader) with
``--no-deps`` (Colab already has NumPy, PyTorch, matplotlib and scikit-learn;
installing Jupyter packages there would replace the ones Colab runs on), then
prints ``course doctor``; then the packages a lesson needs beyond those
(:data:`LESSON_PACKAGES`, e.g. ``numba-cuda`` for the kernel Days), wherever
they are missing. The
``COURSE_PACKAGE`` environment variable, where set, replaces the package for one
machine (a hub that serves its own wheel, the install test).
"""

from __future__ import annotations

from typing import Any

REPOSITORY = "https://github.com/gpu-course/gpu-acceleration-course"
"""The course's public git repository (https URL, no trailing slash)."""
BRANCH = "main"
PACKAGE = ""
"""Where the student library installs from: a wheel's URL, or "" for the
repository's ``student/`` folder at :data:`BRANCH` (``pip`` builds it)."""

LESSON_PACKAGES: dict[str, tuple[str, ...]] = {
    "09": ("numba-cuda",),
    "10": ("numba-cuda",),
}
"""Packages a lesson needs that Colab does not preinstall, by lesson number.

The setup cell installs them, with their dependencies, wherever their module
(the name with ``_`` for ``-``) is missing, course installed or not: a failed
install is retried on the next run of the cell.
"""

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


def package_spec(
    repository: str = REPOSITORY, branch: str = BRANCH, package: str = PACKAGE
) -> str:
    """What ``pip install`` is given on Colab: :data:`PACKAGE`, else the student
    wheel's folder only (``student/``: the ``course`` library, never the grader)."""
    return package or f"git+{repository}@{branch}#subdirectory=student"


def lesson_packages(lesson: str) -> tuple[str, ...]:
    """The extra packages the setup cell of ``lesson`` installs."""
    return LESSON_PACKAGES.get(lesson[:2], ())


def setup_source(lesson: str = "") -> str:
    """The code of ``lesson``'s setup cell (the same for every lesson that needs
    no package beyond the course's)."""
    extras = lesson_packages(lesson)
    more = ""
    if extras:
        modules = [name.replace("-", "_") for name in extras]
        more = f"""
# This lesson also needs {", ".join(extras)}: installed where it is missing.
if any(importlib.util.find_spec(m) is None for m in {modules!r}):
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", *{list(extras)!r}],
        check=True,
    )
    importlib.invalidate_caches()"""
    spec = package_spec()
    pieces = "\n".join(f"    {spec[i : i + 76]!r}" for i in range(0, len(spec), 76))
    return f"""\
# Setup: does nothing where the course is installed (your machine, a GPU box).
# On Colab it installs the course's helpers, then shows your hardware. For a GPU
# there: Runtime > Change runtime type > GPU, then run this cell again.
import importlib.util
import os
import subprocess
import sys

COURSE_PACKAGE = os.environ.get("COURSE_PACKAGE") or (
{pieces}
)
if importlib.util.find_spec("course") is None:
    print("Installing the course helpers from", COURSE_PACKAGE)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         COURSE_PACKAGE],
        check=True,
    )
    importlib.invalidate_caches()
    from course.doctor import doctor_text

    print(doctor_text()){more}"""


def first_cells(lesson: str) -> list[Any]:
    """The badge and setup cells, with stable ids, to put before a lesson's own."""
    import nbformat

    badge = nbformat.v4.new_markdown_cell(badge_source(lesson))
    badge["id"] = "colab-badge"
    setup = nbformat.v4.new_code_cell(setup_source(lesson))
    setup["id"] = "course-setup"
    return [badge, setup]
