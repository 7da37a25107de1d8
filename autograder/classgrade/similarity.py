"""``course similarity LESSON SOURCE``: which submissions' answers look alike.

For each answer cell of a lesson, every pair of submissions is compared with
copydetect's winnowed fingerprints (MOSS's method: code tokenized, names and
literals made anonymous, so renamed variables and reordered functions still
match). What every student was given and what is right are not evidence of
copying, so the released cell's code and the reference answer's are left out
(copydetect's boilerplate). Pairs are ranked per cell and over the lesson by
how much code they share and what share of each answer it is,
and written as ``similarity.csv`` and ``similarity.html``, the code side by
side with the shared parts marked.

A high rank is a reason to read two notebooks, never a verdict.
"""

from __future__ import annotations

import ast
import csv
import html
import io
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Tokens in a fingerprint (copydetect's noise threshold): shorter shared runs
#: are not counted. Answer cells are short, so it is smaller than copydetect's 25.
K = 12
#: Winnowing window: a shared run of ``K + WINDOW - 1`` tokens is always found.
WINDOW = 4


@dataclass
class Pair:
    """Two students' answers to one cell (``cell`` "" for the whole lesson)."""

    cell: str
    first: str
    second: str
    similarity: float  # the smaller of the two answers' shares of shared tokens
    tokens: int  # tokens the two share
    code: tuple[str, str] = ("", "")  # each side's code, shared parts marked

    @property
    def weight(self) -> float:
        """What ranks a pair: much code, mostly shared. Two short answers
        alike (the same small mistake) weigh less than two long ones."""
        return self.similarity * self.tokens


@dataclass
class SimilarityReport:
    lesson: str
    students: int
    pairs: list[Pair] = field(default_factory=list)  # per cell, best first
    overall: list[Pair] = field(default_factory=list)  # the lesson, best first
    problems: list[str] = field(default_factory=list)


def _fingerprint(
    code: str, boilerplate: Any = None, window: int = WINDOW, keep: Any = ()
) -> Any:
    from copydetect import CodeFingerprint

    return CodeFingerprint(
        "answer.py",
        K,
        window,
        boilerplate=boilerplate,
        fp=io.StringIO(without_dead_code(code, set(keep))),
    )


def _bound(code: str) -> set[str]:
    """The names ``code`` binds at its top level (what tests may read)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    found = set()
    for statement in tree.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.add(node.id)
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            found.add(statement.name)
    return found


def _pure(node: ast.AST | None) -> bool:
    """Whether evaluating ``node`` can do nothing but make a value."""
    if node is None:
        return True
    if isinstance(node, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)):
        return False
    if isinstance(node, (ast.NamedExpr, ast.ListComp, ast.SetComp, ast.DictComp)):
        return False
    if isinstance(node, ast.GeneratorExp):
        return False
    return all(_pure(child) for child in ast.iter_child_nodes(node))


def _loaded(tree: ast.AST) -> set[str]:
    """Every name ``tree`` reads (or declares global or nonlocal)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def _dead(statement: ast.stmt, read: set[str]) -> bool:
    """A statement with no effect: a pure expression, ``pass``, or a pure
    value stored in names nothing reads."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return _pure(statement.value)
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    else:
        return False  # an augmented assignment reads its name (an argument)
    names = [n for t in targets for n in ast.walk(t) if isinstance(n, ast.expr)]
    if not all(isinstance(n, (ast.Name, ast.Tuple, ast.List)) for n in names):
        return False  # an attribute or an item: the store is the effect
    stored = {n.id for n in names if isinstance(n, ast.Name)}
    return _pure(statement.value) and not stored & read


def without_dead_code(code: str, keep: set[str] | None = None) -> str:
    """``code`` with the statements that have no effect left out (repeated
    until none is left), so padding an answer with them hides nothing; a
    store into a name of ``keep`` (what the released cell or the reference
    binds: tests read those) always stays. Code that does not parse is
    compared as it is."""
    keep = keep or set()
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    changed = True
    while changed:
        changed, read = False, _loaded(tree)
        for node in ast.walk(tree):
            for part in ("body", "orelse", "finalbody"):
                body = getattr(node, part, None)
                if not isinstance(body, list) or not body:
                    continue
                if not all(isinstance(s, ast.stmt) for s in body):
                    continue
                if isinstance(node, ast.ClassDef):
                    continue  # a class's fields are its shape
                kept = [s for s in body if not _dead(s, read | keep)]
                if not kept and not isinstance(node, ast.Module):
                    if len(body) == 1 and isinstance(body[0], ast.Pass):
                        continue  # already the least a block can hold
                    kept = [ast.Pass()]
                if len(kept) != len(body) or kept[0] is not body[0]:
                    changed = True
                    setattr(node, part, kept)
    return ast.unparse(tree)


def _answers(notebook: Any, release: Any) -> dict[str, str]:
    from autograder.grading.chain.reassemble import reassemble
    from autograder.lessons.conventions import grade_id, is_answer

    rebuilt, _ = reassemble(notebook, release)
    return {
        grade_id(c): c.source
        for c in rebuilt.cells
        if is_answer(c) and c.cell_type == "code"
    }


def compare_answers(
    answers: dict[str, dict[str, str]], given: dict[str, str], right: dict[str, str]
) -> tuple[list[Pair], list[Pair]]:
    """``answers[student][cell]``: every pair per cell, and per lesson, best
    first; ``given`` and ``right`` (per cell) are left out of the comparison."""
    import numpy as np
    from copydetect import compare_files

    per_cell: list[Pair] = []
    shared: dict[tuple[str, str], int] = {}
    coverage: dict[str, int] = dict.fromkeys(answers, 0)
    cells = sorted({c for a in answers.values() for c in a})
    for cell in cells:
        skip: set[int] = set()
        keep = _bound(given.get(cell, "")) | _bound(right.get(cell, ""))
        for code in (given.get(cell, ""), right.get(cell, "")):
            if code.strip():  # every k-gram of it, not a winnowed few
                skip |= set(_fingerprint(code, window=1, keep=keep).hashes)
        boilerplate = np.array(sorted(skip), dtype=np.int64)
        prints = {
            s: _fingerprint(a[cell], boilerplate, keep=keep)
            for s, a in sorted(answers.items())
            if a.get(cell, "").strip()
            and a[cell] not in (given.get(cell), right.get(cell))
        }
        for s, fp in prints.items():
            coverage[s] += fp.token_coverage
        for a, b in itertools.combinations(sorted(prints), 2):
            tokens, shares, slices = compare_files(prints[a], prints[b])
            if not tokens:
                continue
            pair = Pair(cell, a, b, float(min(shares)), int(tokens))
            pair.code = (
                _marked(prints[a].raw_code, slices[0]),
                _marked(prints[b].raw_code, slices[1]),
            )
            per_cell.append(pair)
            shared[(a, b)] = shared.get((a, b), 0) + int(tokens)
    overall = [
        Pair("", a, b, min(1.0, t / max(1, coverage[a], coverage[b])), t)
        for (a, b), t in shared.items()
    ]
    per_cell.sort(key=lambda p: (-p.weight, p.cell, p.first, p.second))
    overall.sort(key=lambda p: (-p.weight, p.first, p.second))
    return per_cell, overall


def _marked(code: str, slices: Any) -> str:
    """``code`` as HTML with the shared parts in ``<mark>``."""
    out, at = [], 0
    for start, end in zip(slices[0], slices[1], strict=True):
        out += [html.escape(code[at:start]), "<mark>", html.escape(code[start:end])]
        out.append("</mark>")
        at = end
    return "".join(out) + html.escape(code[at:])


def similarity(
    lesson: str, source: Path, out_dir: Path, top: int = 20
) -> SimilarityReport:
    """Compare every submission of ``lesson`` in ``source`` (any layout
    ``course grade`` reads); write the CSV and the HTML report to ``out_dir``.

    Raises:
        ValueError: an unknown lesson, or a source intake cannot read.
    """
    import tempfile

    import nbformat

    from autograder.classgrade.intake import collect
    from autograder.lessons import REPO_ROOT, find_lesson, source_to_notebook
    from autograder.lessons.conventions import grade_id, is_answer

    name = find_lesson(lesson).stem
    release = nbformat.read(REPO_ROOT / "notebooks" / name / f"{name}.ipynb", 4)
    given = {grade_id(c): c.source for c in release.cells if is_answer(c)}
    solution = source_to_notebook(find_lesson(name))
    right = {grade_id(c): c.source for c in solution.cells if is_answer(c)}
    with tempfile.TemporaryDirectory(prefix="course-similarity-") as work:
        found = collect(Path(source), name, Path(work))
        answers = {}
        for sub in found.submissions:
            try:
                answers[sub.student] = _answers(nbformat.read(sub.path, 4), release)
            except Exception as exc:  # noqa: BLE001 - that notebook is left out
                found.problems.append(f"{sub.student}: not compared: {exc}")
    report = SimilarityReport(name, len(answers), problems=list(found.problems))
    report.pairs, report.overall = compare_answers(answers, given, right)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_csv(report, out_dir / "similarity.csv")
    from autograder.classgrade.similarity_page import write_page

    write_page(report, out_dir / "similarity.html", top)
    return report


def _write_csv(report: SimilarityReport, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["cell", "student_a", "student_b", "similarity", "tokens"])
        for p in report.overall + report.pairs:
            writer.writerow(
                [
                    p.cell or "(lesson)",
                    p.first,
                    p.second,
                    round(p.similarity, 3),
                    p.tokens,
                ]
            )
