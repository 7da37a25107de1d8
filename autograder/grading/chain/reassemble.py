"""Reassembly: the released notebook, with only the student's answers taken over.

First step of grading (in ``Autograde.sanitize_preprocessors``). Whatever was
done to a submission (test cells deleted, reordered, duplicated, edited, their
metadata stripped, the kernelspec changed) the notebook that runs is the
released student edition (the submission's own: English, or the Chinese
edition its release stamp names) with the student's answer cells put in: answers are
matched by ``grade_id``. Where the metadata is gone, each answer goes to the
released answer cell that defines the same functions and classes (``ast``;
then the same assigned names, then the same first line, then the most alike
text), one cell each: two answers that both start with ``@cuda.jit`` land in
their own cells. Cells the release provides as they are never count as
answers. Every change is flagged, and answers that reach into the interpreter
are listed for review (:mod:`autograder.grading.scan`); both go into the notebook's
``course`` metadata.

The tests then run in the referee, outside the kernel
(:mod:`autograder.grading.chain.referee`).
"""

from __future__ import annotations

import ast
import re
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.scan import scan_answers
from autograder.lessons.conventions import grade_id, is_answer, strip_hidden

#: Notebook metadata key where the chain records what it found.
META = "course"


def _first_line(source: str) -> str:
    for line in source.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.strip()
    return ""


_DEFINED = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.M)
_ALIKE = 0.6  # text similarity that counts as the same cell, when nothing else does


def _source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _names(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """The functions and classes a cell defines, and the other names it assigns
    (top level only). A cell Python cannot parse gives its ``def`` lines."""
    lines = source.splitlines()
    code = "\n".join("" if ln.lstrip()[:1] in ("%", "!") else ln for ln in lines)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return frozenset(_DEFINED.findall(source)), frozenset()
    defined: set[str] = set()
    assigned: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            assigned.update(
                n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
            )
    return frozenset(defined), frozenset(assigned)


def _likeness(
    want: Any, wanted: tuple, source: str, names: tuple
) -> tuple[tuple, str] | None:
    """How well a cell without metadata fits the released answer cell ``want``
    (higher is better), and how it was matched; None if it does not fit.
    ``wanted`` and ``names`` are the two cells' :func:`_names`."""
    (want_defs, want_sets), (defs, sets) = wanted, names
    if want_defs and defs and not want_defs & defs:
        return None  # it defines other functions: another answer
    shared = sorted(want_defs & defs)
    both = want_sets & sets
    by_sets = len(both) / len(want_sets | sets) if both else 0.0
    first = _first_line(want.source)
    same_first = bool(first) and _first_line(source) == first
    alike = 0.0
    if not shared and not both:
        matcher = SequenceMatcher(None, want.source[:2000], source[:2000])
        if matcher.quick_ratio() >= _ALIKE:
            alike = matcher.ratio()
    score = (len(shared) / max(len(want_defs), 1), by_sets, same_first, alike)
    if shared:
        return score, f"the names it defines ({', '.join(shared)})"
    if both:
        return score, f"the names it assigns ({', '.join(sorted(both)[:5])})"
    if same_first:
        return score, "its first line"
    if alike >= _ALIKE:
        return score, f"its text ({alike:.0%} alike)"
    return None


def _match_stripped(
    missing: list[Any], submitted: Any, release: Any
) -> dict[str, tuple[Any, str]]:
    """Answer cells for the released answer cells in ``missing`` (no cell of the
    submission carries their ``grade_id``): ``{grade_id: (cell, how)}``.

    Candidates are the submission's cells without a known ``grade_id`` that are
    not a provided cell left as it is. The best fits are taken first, one
    candidate per answer; of two equal fits the later cell wins, as it would
    when the notebook runs.
    """
    known = {grade_id(c) for c in release.cells if grade_id(c)}
    provided = {_visible(c.source) for c in release.cells if not is_answer(c)}
    pool = [
        (index, cell, _source(cell))
        for index, cell in enumerate(submitted.get("cells", []))
        if isinstance(cell, dict) and grade_id(cell) not in known
    ]
    pool = [(i, c, text) for i, c, text in pool if _visible(text) not in provided]
    names = {i: _names(text) for i, _, text in pool}
    fits = []
    for want in missing:
        wanted = _names(want.source)
        for index, cell, text in pool:
            if cell.get("cell_type") == want.cell_type:
                fit = _likeness(want, wanted, text, names[index])
                if fit is not None:
                    fits.append((fit[0], index, grade_id(want), cell, fit[1]))
    fits.sort(key=lambda f: (f[0], f[1]), reverse=True)
    found: dict[str, tuple[Any, str]] = {}
    used: set[int] = set()
    for _, index, gid, cell, how in fits:
        if gid not in found and index not in used:
            found[gid] = (cell, how)
            used.add(index)
    return found


def _visible(source: str) -> str:
    """A cell's source without hidden tests and without blank-line differences."""
    lines = strip_hidden(source).strip().splitlines()
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _cells_by_id(submitted: Any) -> dict[str, list[Any]]:
    by_id: dict[str, list[Any]] = {}
    for cell in submitted.get("cells", []):
        if isinstance(cell, dict) and grade_id(cell):
            by_id.setdefault(grade_id(cell), []).append(cell)
    return by_id


def _structure_flags(submitted: Any, release: Any, by_id: dict) -> list[str]:
    flags = [f"duplicated cell {g}" for g, cells in by_id.items() if len(cells) > 1]
    release_ids = [grade_id(c) for c in release.cells if grade_id(c)]
    flags += [f"unknown grade_id {g}" for g in by_id if g not in release_ids]
    order = [grade_id(c) for c in submitted.get("cells", []) if isinstance(c, dict)]
    known = [g for g in order if g in release_ids]
    if known != [g for g in release_ids if g in order] and len(set(order)) == len(
        order
    ):
        flags.append("cells reordered")
    return flags


def _answer_for(cell: Any, by_id: dict, stripped: dict, flags: list[str]) -> Any:
    gid = grade_id(cell)
    candidates = by_id.get(gid, [])
    if candidates:
        return candidates[-1]
    if gid in stripped:
        answer, how = stripped[gid]
        flags.append(f"metadata of {gid} missing; matched by {how}")
        return answer
    flags.append(f"metadata of {gid} missing; answer not found")
    return None


def reassemble(submitted: Any, release: Any) -> tuple[Any, list[str]]:
    """Rebuild a submission on the released notebook; return it and the flags."""
    by_id = _cells_by_id(submitted)
    flags = _structure_flags(submitted, release, by_id)
    missing = [c for c in release.cells if is_answer(c) and not by_id.get(grade_id(c))]
    stripped = _match_stripped(missing, submitted, release) if missing else {}
    rebuilt = nbformat.v4.new_notebook(metadata=dict(release.metadata))
    for cell in release.cells:
        new = nbformat.from_dict(cell)
        gid = grade_id(cell)
        if is_answer(cell):
            answer = _answer_for(cell, by_id, stripped, flags)
            if answer is not None:
                if answer.get("cell_type") != cell.cell_type:
                    flags.append(f"cell type of {gid} changed")
                else:
                    source = answer.get("source", "")
                    new.source = (
                        "".join(source) if isinstance(source, list) else str(source)
                    )
        elif gid:
            original = by_id.get(gid, [])
            if not original:
                flags.append(f"test or locked cell {gid} missing (restored)")
            elif any(
                _visible(str(c.get("source", ""))) != _visible(cell.source)
                for c in original
            ):
                flags.append(f"test or locked cell {gid} edited (restored)")
            elif any(c.get("cell_type") != cell.cell_type for c in original):
                flags.append(f"cell type of {gid} changed (restored)")
        rebuilt.cells.append(new)
    kernel = submitted.get("metadata", {}).get("kernelspec", {}).get("name")
    if kernel and kernel != release.metadata.get("kernelspec", {}).get("name"):
        flags.append(f"kernelspec changed to {kernel!r} (reset)")
    return rebuilt, flags


def release_path(config: Any, assignment: str, notebook: str) -> Path:
    """Where the course keeps the released (student) edition of a notebook."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    folder = coursedir.format_path(coursedir.release_directory, ".", assignment)
    return Path(folder) / f"{notebook}.ipynb"


def edition_release(config: Any, assignment: str, notebook: str, lang: str) -> Any:
    """The released notebook of the ``lang`` edition (the course root's
    ``notebooks-zh/``, as the release kept it), else the English one
    translated now from the course's catalogs, else the English one: its code
    cells are the same in every edition."""
    from nbgrader.coursedir import CourseDirectory

    from autograder.lessons.catalogs import edition_folder, translate_notebook

    english = release_path(config, assignment, notebook)
    root = Path(CourseDirectory(config=config).root)
    kept = root / edition_folder(lang) / assignment / english.name
    if kept.is_file():
        return nbformat.read(kept, as_version=4)
    release = nbformat.read(english, as_version=4)
    try:
        return translate_notebook(release, notebook, lang)
    except (ImportError, OSError):  # no catalogs on this machine
        return release


class Reassemble(NbGraderPreprocessor):
    """Rebuild the submission on the released notebook of its own edition
    (see the module)."""

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        from course.i18n import notebook_language

        info = resources["nbgrader"]
        path = release_path(self.config, info["assignment"], info["notebook"])
        if not path.is_file():
            self.log.warning("No released notebook at %s: not reassembled", path)
            return nb, resources
        lang = notebook_language(nb)
        if lang == "en":
            release = nbformat.read(path, as_version=4)
        else:
            release = edition_release(
                self.config, info["assignment"], info["notebook"], lang
            )
        rebuilt, flags = reassemble(nb, release)
        answers = [(grade_id(c), c.source) for c in rebuilt.cells if is_answer(c)]
        rebuilt.metadata[META] = {"flags": flags, "review": scan_answers(answers)}
        if lang != "en":
            rebuilt.metadata[META]["lang"] = lang
        return rebuilt, resources
