"""Every release of a lesson kept, so grading follows the release students got.

``course release`` stamps each student notebook's metadata with its release
(``course.release``: the lesson and a digest of what grading reads: the
lesson's source, its hidden tests, points and reference included, and the
released notebook) and keeps that release under ``releases/NN_topic/DIGEST/``
in the course root, beside the gradebook (:mod:`autograder.lessons.kept`:
where, listing, pruning, and the releases git's history kept), laid out like
the repository (``solutions/NN_topic/NN_topic.py``,
``notebooks/NN_topic/NN_topic.ipynb``), once. A translated edition's notebook
carries the same stamp, with its language (``"lang": "zh_CN"``): the same
rules grade both, and the release keeps that edition's notebook too
(``notebooks-zh/NN_topic/NN_topic.ipynb``), on which reassembly builds.

When a submission is graded, its stamp picks the rules (:func:`resolve`): the
repository's own lesson when the stamp is the current release's, else the kept
release. The rules are a value, a :class:`Release`, that the submission's job
carries through the grading chain: the lesson's source, its released notebook
and the grader's caches (kept apart per release) are read from it. A
notebook with no stamp is graded under the current release, and the run says
so; one whose stamp the course does not keep is held back, named in a
problem line, never graded under rules it was not written for.

What is not pinned: the grader's own program (``autograder/``) and the
``course`` library; they are the installed version's.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.lessons import REPO_ROOT, find_lesson, source_to_notebook
from autograder.lessons.kept import ADVICE, Kept, default_root, kept, restore

RELEASES = default_root()
"""Where releases are kept: ``releases/`` in the course root (ignored by git;
never in a student edition, and out of every grading kernel's reach)."""
_COURSE_RELEASES = RELEASES  # the course's own (tests point RELEASES elsewhere)
META, STAMP = "course", "release"


@dataclass(frozen=True)
class Release:
    """A lesson under one release's rules, as a value a job carries: the
    repository's own lesson (``root`` None) or a kept release's, whose
    ``root`` is laid out like the repository."""

    lesson: str
    root: Path | None = None

    @property
    def source(self) -> Path:
        """The lesson's source under these rules."""
        own = find_lesson(self.lesson)
        if self.root is None:
            return own
        return Path(self.root) / "solutions" / own.stem / own.name

    @property
    def notebook_root(self) -> Path:
        """The root whose ``notebooks/`` holds the released notebook."""
        return REPO_ROOT if self.root is None else Path(self.root)

    def edition(self, lang: str) -> Path | None:
        """The released notebook of the ``lang`` edition (``zh_CN``), where
        this release keeps one: ``notebooks-zh/NN/NN.ipynb``."""
        from autograder.lessons.catalogs import edition_folder

        found = self.notebook_root / edition_folder(lang) / self.lesson
        found = found / f"{self.lesson}.ipynb"
        return found if found.is_file() else None

    @property
    def cache(self) -> str | None:
        """``lesson@digest`` for a kept release (the grader's caches for it
        are kept apart), else None."""
        if self.root is None:
            return None
        return f"{find_lesson(self.lesson).stem}@{Path(self.root).name}"


def release_of(lesson: str | Release) -> Release:
    """A lesson name as the repository's own release; a release as itself."""
    return lesson if isinstance(lesson, Release) else Release(lesson)


def _unstamped(nb: Any) -> str:
    """A notebook's canonical JSON without its release stamp."""
    import nbformat

    copy = nbformat.from_dict(json.loads(json.dumps(nb)))
    found = copy.metadata.get(META, {})
    found.pop(STAMP, None)
    if not found:
        copy.metadata.pop(META, None)
    return nbformat.writes(copy)


def digest(source: Path, released: Any) -> str:
    """What grading reads of a release: the source's bytes and the released
    notebook without its stamp (16 hex digits)."""
    found = hashlib.sha256(source.read_bytes())
    found.update(_unstamped(released).encode())
    return found.hexdigest()[:16]


def _stamp_field(notebook: Any, key: str) -> Any:
    """``key`` of the release stamp a notebook (a path or a parsed notebook)
    carries, or None."""
    if isinstance(notebook, (str, Path)):
        try:
            notebook = json.loads(Path(notebook).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
    try:
        return notebook["metadata"][META][STAMP][key]
    except (KeyError, TypeError):
        return None


def stamped_lesson(notebook: Any) -> str | None:
    """The lesson a notebook's release stamp names, or None."""
    found = _stamp_field(notebook, "lesson")
    return found if isinstance(found, str) else None


def stamp_of(notebook: Any) -> str | None:
    """The release digest a notebook (a path or a parsed notebook) carries, or
    None (a notebook from before stamps, or one whose stamp was removed)."""
    found = _stamp_field(notebook, "digest")
    ok = isinstance(found, str) and re.fullmatch(r"[0-9a-f]{16}", found)
    return found if ok else None


def stamp(path: Path, lesson: str | Release, keep: Path = RELEASES) -> str:
    """Stamp the released notebook at ``path`` with its release, and keep the
    release under ``keep`` (once). Returns the digest."""
    import nbformat

    from autograder.lessons import write_notebook

    source = release_of(lesson).source
    lesson = release_of(lesson).lesson
    nb = nbformat.read(path, as_version=4)
    found = digest(source, nb)
    nb.metadata.setdefault(META, {})[STAMP] = {"lesson": lesson, "digest": found}
    write_notebook(nb, path)
    kept = keep / lesson / found
    if not kept.is_dir():
        work = kept.with_name(f".{found}.tmp")
        shutil.rmtree(work, ignore_errors=True)
        (work / "solutions" / lesson).mkdir(parents=True)
        shutil.copyfile(source, work / "solutions" / lesson / source.name)
        (work / "notebooks" / lesson).mkdir(parents=True)
        shutil.copyfile(path, work / "notebooks" / lesson / path.name)
        work.rename(kept)
    return found


def as_released(nb: Any, lesson: str) -> Any:
    """``nb`` (a lesson's notebook) with the current release's stamp, as a
    student's copy of the release carries it."""
    import nbformat

    release = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
    found = nbformat.read(release, as_version=4).metadata.get(META, {}).get(STAMP)
    if found is not None:
        nb.metadata.setdefault(META, {})[STAMP] = dict(found)
    return nb


@dataclass(frozen=True)
class Rules:
    """The rules a submission is graded under."""

    lesson: str
    root: Path | None  # a kept release; None: the repository's own lesson
    stamp: str | None  # what the notebook carries
    note: str  # "" for the current release, else what the summary says
    digest: str = ""  # the release whose rules grade it
    held: str = ""  # why it is held back, not graded ("" when it is graded)

    @property
    def key(self) -> tuple[str, str]:
        return (self.lesson, str(self.root or ""))

    @property
    def release(self) -> Release:
        return Release(self.lesson, self.root)


def current(lesson: str) -> str:
    """The digest of the lesson as the repository has it now (its source and
    its released notebook)."""
    import nbformat

    source = find_lesson(lesson)
    nb = nbformat.read(REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb", 4)
    return digest(source, nb)


def resolve(
    lesson: str,
    stamp: str | None,
    now: str,
    rules: str = "release",
    kept: Path | None = None,
    of: str | None = None,
) -> Rules:
    """Which rules grade a submission of ``lesson`` stamped ``stamp`` (a
    release of lesson ``of``, where the stamp names one), ``now`` being the
    :func:`current` digest: with ``rules="current"``, always the repository's
    own. A stamp of another lesson's release is no release of this one: the
    current rules grade it (and find it of the wrong lesson). Releases are
    looked up in ``kept`` (default :data:`RELEASES`)."""
    kept = RELEASES if kept is None else kept
    if kept == _COURSE_RELEASES:
        restore(kept)
    if rules == "current" or stamp == now:
        return Rules(lesson, None, stamp, "", now)
    if stamp is None:
        return Rules(lesson, None, None, "carry no release stamp", now)
    if of is not None and of != lesson:
        return Rules(lesson, None, stamp, f"carry a release of {of}", now)
    root = kept / lesson / stamp
    try:
        found = (root / "solutions" / lesson / f"{lesson}.py").is_file()
    except OSError:  # a name the file system refuses: not kept
        found = False
    if found:
        return Rules(lesson, root, stamp, f"were released as {stamp}", stamp)
    held = (
        f"carries release {stamp}, which this course does not keep in {kept}. "
        "Copy that release's folder there from the machine that made it "
        "(Instructor guide, 'Where releases live'). Or: " + ADVICE
    )
    return Rules(lesson, None, stamp, "", stamp, held)


def summary(found: list[Rules]) -> list[str]:
    """One line per lesson and release other than the current one."""
    from collections import Counter

    counts = Counter((r.lesson, r.note, r.root is not None) for r in found if r.note)
    return [
        f"{lesson}: {n} submission(s) {note}: graded under "
        + ("that release (kept in releases/)" if kept else "the current release")
        for (lesson, note, kept), n in sorted(counts.items())
    ]


def grade_points(lesson: Any) -> dict[str, float]:
    """Points of every test cell of ``lesson`` (a name, or a
    :class:`Release`), by ``grade_id``."""
    from autograder.lessons.conventions import grade_id, nbgrader_meta

    nb = source_to_notebook(release_of(lesson).source)
    return {
        grade_id(c): float(nbgrader_meta(c)["points"])
        for c in nb.cells
        if nbgrader_meta(c).get("grade")
    }


#: The largest notebook read for its stamp, in a folder or a zip.
_MAX_NOTEBOOK = 256 * 1024 * 1024


def stamps_in(paths: Iterable[Path]) -> set[tuple[str, str]]:
    """(lesson, digest) of every release stamp in the notebooks under
    ``paths``: folders (searched whole), notebooks and zips of notebooks.

    Raises:
        FileNotFoundError: a path that is not there.
        ValueError: a zip that cannot be read, or a notebook too large to
            read: what it holds is not known, so nothing may be pruned.
    """
    found: set[tuple[str, str]] = set()

    def note(data: bytes) -> None:
        try:
            nb = json.loads(data)
        except ValueError:
            return  # not a notebook: no stamp
        stamp, lesson = stamp_of(nb), stamped_lesson(nb)
        if stamp and lesson:
            found.add((lesson, stamp))

    def too_large(size: int, where: str) -> None:
        if size > _MAX_NOTEBOOK:
            raise ValueError(f"{where}: a notebook too large to read its stamp")

    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or folder")
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in files:
            kind = file.suffix.lower()
            if kind == ".ipynb" and file.is_file():
                too_large(file.stat().st_size, str(file))
                note(file.read_bytes())
            elif kind == ".zip" and file.is_file():
                try:
                    with zipfile.ZipFile(file) as archive:
                        for info in archive.infolist():
                            if info.filename.lower().endswith(".ipynb"):
                                too_large(info.file_size, f"{file}:{info.filename}")
                                note(archive.read(info))
                except zipfile.BadZipFile as exc:
                    raise ValueError(f"{file}: not a zip that can be read") from exc
    return found


def prunable(have: set[tuple[str, str]], root: Path | None = None) -> list[Kept]:
    """The kept releases no student has (none of ``have``) that are not their
    lesson's current release nor the release ``notebooks/`` (or a translated
    edition) carries now."""
    from autograder.lessons import lesson_names

    now = {(name, current(name)) for name in lesson_names()}
    handed = stamps_in(p for p in REPO_ROOT.glob("notebooks*") if p.is_dir())
    return [k for k in kept(root) if (k.lesson, k.digest) not in have | now | handed]
