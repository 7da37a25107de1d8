"""Write the student edition: ``solutions/NN/NN.py`` -> ``notebooks/NN/NN.ipynb``.

For each lesson, in a scratch course (so the ``.py`` source never sits next to
the notebook nbgrader releases): convert the source to a notebook, run
``nbgrader generate_assignment`` (answers become stubs, hidden tests and outputs
are removed, checksums recorded), check the result for leaks, and only then
copy it to ``notebooks/``. Each student notebook is stamped with its release,
and the release is kept in the course root's ``releases/``
(:mod:`autograder.lessons.kept`): grading follows the release a student was
given.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from autograder.lessons import REPO_ROOT, lesson_names, write_notebook
from autograder.lessons.scratch import ScratchCourse
from autograder.publish.leaks import notebook_leaks


class LeakError(RuntimeError):
    """A released notebook contains solution, hidden-test or output text."""


def _normalise(path: Path) -> None:
    """Rewrite a released notebook in canonical form, without jupytext metadata."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("jupytext", None)
    write_notebook(nb, path)


def release(
    lessons: list[str] | None = None,
    out_dir: Path | None = None,
    *,
    log=print,
    probe: bool = False,
    keep: Path | None = None,
    root: Path | None = None,
) -> list[Path]:
    """Release lessons (default: all) into ``out_dir`` (default: ``notebooks/``),
    each release kept in ``keep`` (default: the course root's ``releases/``,
    or ``releases`` beside ``out_dir``).

    ``root``: the lessons' sources are taken from a tree laid out like the
    repository there (a draft of new rules), not from the repository.

    With ``probe``, then run the delegation probe of every lesson
    (:mod:`autograder.publish.probe`). Returns the written notebook paths.

    Raises:
        LeakError: a released file contains solution or hidden-test text.
        DelegationError: a course helper reproduces a hidden test's results.
        RuntimeError: nbgrader failed on a lesson.
    """
    from autograder.lessons.releases import RELEASES, Release, stamp

    if keep is None:
        keep = RELEASES if out_dir is None else Path(out_dir).parent / "releases"
    out_dir = REPO_ROOT / "notebooks" if out_dir is None else Path(out_dir)
    names = lesson_names() if lessons is None else lessons
    written: list[Path] = []
    with ScratchCourse() as course:
        for name in names:
            released = course.generate(Release(name, root))
            # Checked in the scratch course, before anything reaches out_dir.
            for notebook in sorted(released.rglob("*.ipynb")):
                _normalise(notebook)
                problems = notebook_leaks(notebook)
                if problems:
                    raise LeakError(f"{notebook.name}: {'; '.join(problems)}")
            digest = stamp(
                released / f"{released.name}.ipynb", Release(released.name, root), keep
            )
            target = out_dir / released.name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(released, target)
            written += sorted(target.rglob("*.ipynb"))
            log(f"released {released.name} -> {target} (release {digest})")
    if probe:
        from autograder.publish.probe import run_probe

        for name in names:
            report = run_probe(name)
            log(f"probe {name}: no course helper reproduces a hidden test ({report})")
    return written


def release_edition(
    lang: str,
    lessons: list[str] | None = None,
    source: Path | None = None,
    out_dir: Path | None = None,
    *,
    log=print,
) -> tuple[list[Path], list[str]]:
    """The ``lang`` edition (``zh``) of each released lesson that has a
    complete catalog: ``notebooks/NN/NN.ipynb`` (``source``) with its prose
    translated (:mod:`autograder.lessons.catalogs`) into
    ``notebooks-<lang>/NN/NN.ipynb`` (``out_dir``); the same names, cells,
    code and nbgrader metadata, so one gradebook definition grades both.
    Returns the written notebooks and the gaps that kept a lesson out (a
    missing or fuzzy translation, named by lesson and first words).

    Raises:
        LeakError: a translated notebook holds solution or hidden-test text.
    """
    from autograder.lessons.catalogs import (
        LANGUAGES,
        gaps,
        translate_notebook,
        translated_lessons,
    )

    code = LANGUAGES[lang]
    source = REPO_ROOT / "notebooks" if source is None else Path(source)
    keep = out_dir is None  # the repository's edition: kept with its release
    out_dir = REPO_ROOT / f"notebooks-{lang}" if out_dir is None else Path(out_dir)
    names = [n for n in translated_lessons(code) if lessons is None or n in lessons]
    written, kept_out = [], []
    for name in names:
        missing = [g.line() for g in gaps(code, name)]
        if missing:
            kept_out += missing
            continue
        nb = translate_notebook(
            nbformat.read(source / name / f"{name}.ipynb", as_version=4), name, code
        )
        target = out_dir / name / f"{name}.ipynb"
        write_notebook(nb, target)
        problems = notebook_leaks(target)
        if problems:
            target.unlink()
            raise LeakError(f"{target}: {'; '.join(problems)}")
        written.append(target)
        if keep:
            keep_edition(target, name, lang)
        log(f"released {name} in {lang} -> {target}")
    return written, kept_out


def keep_edition(
    notebook: Path, lesson: str, lang: str, keep: Path | None = None
) -> Path | None:
    """Keep a translated edition's notebook beside the kept release whose
    stamp it carries (``releases/NN/DIGEST/notebooks-<lang>/NN/NN.ipynb``,
    in ``keep``: default, the course's), so that a submission of that
    release is reassembled on its own edition. Returns the kept copy, or
    None where the release is not kept there."""
    from autograder.lessons.releases import RELEASES, stamp_of

    found = stamp_of(notebook)
    kept = (RELEASES if keep is None else keep) / lesson / str(found)
    if found is None or not kept.is_dir():
        return None
    copy = kept / f"notebooks-{lang}" / lesson / notebook.name
    if not copy.is_file() or copy.read_bytes() != notebook.read_bytes():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, copy)
    return copy
