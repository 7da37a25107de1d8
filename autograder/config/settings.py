"""The grader's settings: the nbgrader configs a run loads
(:func:`instructor_config`, :func:`grading_config`), the grader's cache
(:func:`cache_root`, :func:`locked`, :func:`library_fingerprint`) and the
running Python's tools on ``PATH``. Imports nothing else of ``autograder``."""

from __future__ import annotations

import contextlib
import copy
import fcntl
import functools
import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

AUTOGRADER_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = AUTOGRADER_DIR.parent


def cache_root(release: Any = None) -> Path:
    """The grader's cache: ``$COURSE_CACHE_DIR``, or ``gpu-course`` in the user
    cache. Grading kernels cannot read it (:mod:`autograder.grading.kernel.sandbox`).
    For a kept ``release`` (:class:`autograder.lessons.releases.Release`), its
    own folder in there."""
    override = os.environ.get("COURSE_CACHE_DIR")
    if override:
        root = Path(override)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        root = Path(base) / "gpu-course"
    pinned = None if release is None else release.cache
    return root if pinned is None else root / "releases" / pinned


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def library_fingerprint() -> str:
    """Changes whenever the student library (every file of ``course/``) or
    the NumPy and torch it runs on change: part of every cache key of what a
    lesson computes. Reads versions from package metadata (importing torch
    would cost seconds)."""
    from importlib.metadata import version

    digest = hashlib.sha256()
    for path in sorted((REPO_ROOT / "course").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(REPO_ROOT)).encode())
            digest.update(path.read_bytes())
    digest.update(f"{version('numpy')} {version('torch')}".encode())
    return digest.hexdigest()


def put_python_on_path() -> None:
    """nbgrader runs tools such as ``alembic`` by name: find the running Python's.

    A virtual environment used without being activated (``.venv/bin/python -m
    course``) is not on ``PATH``, so its scripts would not be found.
    """
    os.environ["PATH"] = python_on_path(os.environ.get("PATH", ""))


def python_on_path(path: str) -> str:
    """``path`` with the running Python's folder in front, unless it has it."""
    bin_dir = str(Path(sys.executable).parent)
    parts = path.split(os.pathsep)
    return path if bin_dir in parts else os.pathsep.join([bin_dir, *parts])


def instructor_config(course_root: Path | None) -> Config:
    """The settings nbgrader would load at an instructor's ``course_root``: its
    ``nbgrader_config.py``, or the course's own settings when it has none.

    A file is read once per process while it stays unchanged; each caller
    gets its own copy."""
    path = AUTOGRADER_DIR / "nbgrader_config.py"
    if course_root is not None and (Path(course_root) / "nbgrader_config.py").is_file():
        path = Path(course_root) / "nbgrader_config.py"
    return copy.deepcopy(_loaded(path.resolve(), path.stat().st_mtime_ns))


def course_config(course_root: Path | None) -> Config:
    """The settings ``course grade`` runs under, read once for a run: the
    course's own, with an instructor's root config (``course_root``'s
    ``nbgrader_config.py``, which nbgrader reads there) over them."""
    config = instructor_config(None)
    config.merge(instructor_config(course_root))
    return config


@functools.lru_cache(maxsize=8)
def _loaded(path: Path, _mtime_ns: int) -> Config:
    """A config file as read (``_loaded.cache_info().misses`` counts reads)."""
    config = PyFileConfigLoader(path.name, path=str(path.parent)).load_config()
    refuse_moved_names(config, path)
    return config


#: Sections of an instructor's config that do not travel to a grading job:
#: where its folders are and how students exchange files.
_PLACES = ("CourseDirectory", "Exchange", "ExchangeFactory")


def job_settings(config: Config) -> dict[str, dict[str, Any]]:
    """What an instructor's ``config`` sets differently from the course's own,
    as plain data a grading job carries (to a cluster's worker too): limits
    such as ``GradingExecute.timeout`` or ``LimitOutput.max_lines``. Classes
    and the course's folders stay out."""
    own = instructor_config(None)
    found: dict[str, dict[str, Any]] = {}
    for section, traits in config.items():
        if section in _PLACES or not isinstance(traits, dict):
            continue
        for trait, value in traits.items():
            if _plain(value) and own.get(section, {}).get(trait, object()) != value:
                found.setdefault(section, {})[trait] = copy.deepcopy(value)
    return found


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict) and not isinstance(value, Config):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


#: Modules of the course that moved, by their old name.
MOVED = {
    "autograder.late": "autograder.classgrade.late",
    "autograder.lms": "autograder.classgrade.lms",
    "autograder.sandbox": "autograder.grading.kernel.sandbox",
    "autograder.bench_grading": "autograder.measure.bench_grading",
    "autograder.chain": "autograder.grading.chain",
}


def refuse_moved_names(config: Config, path: Path) -> None:
    """Stop on a setting that names a module by its old name, naming the new.

    Raises:
        ValueError: ``path`` sets a trait to a name under :data:`MOVED`.
    """
    for section, traits in config.items():
        if not isinstance(traits, dict):
            continue
        for trait, value in traits.items():
            for text in value if isinstance(value, (list, tuple)) else [value]:
                if not isinstance(text, str):
                    continue
                for old, new in MOVED.items():
                    if text == old or text.startswith(old + "."):
                        raise ValueError(
                            f"{path}: c.{section}.{trait} names {text!r}, but "
                            f"{old} is now {new}: write "
                            f"{new + text[len(old) :]!r} instead"
                        )


def grading_config(root: Path, settings: dict | None = None) -> Config:
    """The course's settings (``autograder/nbgrader_config.py``), an
    instructor's ``settings`` over them (:func:`job_settings`), and the course
    root set to ``root`` (a scratch course or a grading job's folder)."""
    config = instructor_config(None)
    if settings:
        config.merge(Config(copy.deepcopy(settings)))
    root = Path(root).resolve()
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
    return config


def write_course_config(root: Path) -> Path:
    """Write ``root/nbgrader_config.py``: the course's settings, with this root.

    The ``nbgrader`` command reads that file when run in ``root``.
    """
    path = Path(root) / "nbgrader_config.py"
    path.write_text(
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(AUTOGRADER_DIR / 'nbgrader_config.py')!r})"
        "  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(Path(root).resolve())!r}\n",
        encoding="utf-8",
    )
    return path
