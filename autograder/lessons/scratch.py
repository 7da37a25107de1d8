"""Throwaway nbgrader course folders.

nbgrader copies every file of an assignment's source folder into the release, so
the lesson's ``.py`` source (with every answer in it) must never sit next to the
notebook being released. A :class:`ScratchCourse` is a temporary course root that
holds only the converted solution notebook and the lesson's data files, with the
course's own ``nbgrader_config.py`` pointed at it.

Generating a lesson into a new course costs seconds (nbgrader creates and
migrates a gradebook, then releases the lesson), so a new course gets a copy of
a cached one instead (:func:`cached_course`), kept under
:func:`~autograder.config.settings.cache_root` and keyed by everything the
result depends on.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from autograder.config.settings import (
    AUTOGRADER_DIR,
    cache_root,
    grading_config,
    locked,
    put_python_on_path,
)
from autograder.lessons import source_to_notebook, write_notebook
from autograder.lessons.releases import release_of

_SKIP = {"__pycache__", ".ipynb_checkpoints"}


def _template_key(lesson: Any) -> str:
    """Changes whenever the generated course could: the lesson as converted,
    its data files, the course's nbgrader settings and nbgrader's version."""
    import nbformat
    from nbgrader import __version__ as nbgrader_version

    source = release_of(lesson).source
    digest = hashlib.sha256(nbformat.writes(source_to_notebook(source)).encode())
    for item in sorted(source.parent.rglob("*")):
        if item.is_file() and item.suffix != ".py" and not _SKIP & set(item.parts):
            digest.update(str(item.relative_to(source.parent)).encode())
            digest.update(item.read_bytes())
    digest.update((AUTOGRADER_DIR / "nbgrader_config.py").read_bytes())
    digest.update(f"{nbgrader_version} {sys.version_info[:2]}".encode())
    return digest.hexdigest()[:20]


def cached_course(lesson: Any) -> Path:
    """A course folder with ``lesson`` (a name or a
    :class:`~autograder.lessons.releases.Release`) generated in it, from the
    cache (made on first use, by one process at a time; older versions
    removed)."""
    lesson = release_of(lesson)
    stem = lesson.source.stem
    folder = cache_root(lesson) / "templates"
    done = folder / f"{stem}-{_template_key(lesson)}"
    if done.is_dir():
        return done
    with locked(folder / f"{stem}.lock"):
        if done.is_dir():
            return done
        work = Path(tempfile.mkdtemp(prefix=f".{stem}-", dir=folder))
        try:
            ScratchCourse(work, keep=True).generate(lesson, cached=False)
            os.replace(work, done)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for old in folder.glob(f"{stem}-*"):
            if old != done and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
    return done


class ScratchCourse:
    """A temporary nbgrader course root, removed on exit unless ``keep`` is set."""

    def __init__(self, root: Path | None = None, *, keep: bool = False) -> None:
        self._owned = root is None
        self.root = (
            Path(tempfile.mkdtemp(prefix="course-")) if root is None else Path(root)
        )
        self.root.mkdir(parents=True, exist_ok=True)
        self.keep = keep
        self._api = None

    @property
    def api(self):
        """An ``nbgrader.apps.NbGraderAPI`` for this course root (created once)."""
        if self._api is None:
            from nbgrader.apps import NbGraderAPI
            from nbgrader.coursedir import CourseDirectory

            put_python_on_path()
            config = grading_config(self.root)
            self._api = NbGraderAPI(
                coursedir=CourseDirectory(config=config), config=config
            )
        return self._api

    def add_lesson(self, lesson: Any) -> Path:
        """Copy a lesson's (a name or a :class:`~autograder.lessons.releases.
        Release`) solution notebook and data files into ``solutions/``."""
        source = release_of(lesson).source
        target = self.root / "solutions" / source.stem
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for item in source.parent.iterdir():
            if item.name in _SKIP or item.suffix == ".py":
                continue
            if item.is_dir():
                shutil.copytree(item, target / item.name)
            else:
                shutil.copy2(item, target / item.name)
        write_notebook(source_to_notebook(source), target / f"{source.stem}.ipynb")
        return target

    def generate(self, lesson: Any, *, cached: bool = True) -> Path:
        """Add a lesson and run ``nbgrader generate_assignment`` on it.

        Returns the folder of the released student edition. Fills the gradebook
        with the lesson's cells, tests included, which autograde needs. A course
        without a gradebook yet gets a copy of :func:`cached_course` instead,
        unless ``cached`` is False.

        Raises:
            RuntimeError: nbgrader failed; the message carries nbgrader's log.
        """
        if cached and self._api is None and not (self.root / "gradebook.db").exists():
            shutil.copytree(cached_course(lesson), self.root, dirs_exist_ok=True)
            return self.root / "notebooks" / release_of(lesson).source.stem
        name = self.add_lesson(lesson).name
        result = self.api.generate_assignment(name, force=True, create=True)
        if not result.get("success"):
            raise RuntimeError(
                f"nbgrader generate_assignment {name} failed:\n"
                f"{result.get('error') or ''}\n{result.get('log') or ''}"
            )
        return self.root / "notebooks" / name

    def close(self) -> None:
        """Remove the scratch folder (if this object created it and not ``keep``)."""
        if self._owned and not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ScratchCourse:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
