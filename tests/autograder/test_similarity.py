"""``course similarity``: near-copies planted among a lesson's samples (names
changed, functions reordered) rank above every honest pair, and neither the
released template nor the reference answer counts as shared code."""

from __future__ import annotations

import ast
import dataclasses
import shutil

import pytest

from autograder.classgrade.similarity import similarity
from autograder.lessons import REPO_ROOT
from autograder.samples import all_samples, write_samples
from autograder.samples.casefile import write

pytest.importorskip("copydetect")


def disguise(code: str) -> str:
    """``code`` as a student who copied it would hand it in: every argument
    and local variable renamed, the functions in the other order."""
    tree = ast.parse(code)
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for arg in node.args.args:
                names.setdefault(arg.arg, f"v{len(names)}")
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.setdefault(sub.id, f"v{len(names)}")

    class Rename(ast.NodeTransformer):
        def visit_arg(self, node):
            node.arg = names.get(node.arg, node.arg)
            return node

        def visit_Name(self, node):
            node.id = names.get(node.id, node.id)
            return node

    tree = Rename().visit(tree)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    rest = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]
    tree.body = functions[::-1] + rest
    return ast.unparse(tree)


@pytest.mark.parametrize("lesson", ["06_linear_regression", "08_neural_network"])
def test_planted_near_copies_rank_above_every_honest_pair(lesson, tmp_path):
    samples = [s for s in all_samples([lesson]) if s.kind not in ("blank",)]
    samples = [s for s in samples if s.status == "graded"]
    write_samples(tmp_path / "in", samples=samples)
    planted = set()
    for name in ("allowed-idioms-a", "allowed-idioms-b"):
        honest = next(s for s in samples if s.name == name)
        answers = {cell: disguise(code) for cell, code in honest.answers.items()}
        assert answers != honest.answers
        copy = dataclasses.replace(honest, name=f"copy-of-{name}", answers=answers)
        write(copy, tmp_path / "in" / f"{copy.name}_{lesson}.ipynb")
        planted.add(frozenset((name, copy.name)))
    report = similarity(lesson, tmp_path / "in", tmp_path / "out")
    assert report.students == len(samples) + 2 and not report.problems
    ranked = [frozenset((p.first, p.second)) for p in report.overall]
    honest_pairs = [
        i for i, pair in enumerate(ranked) if not any("copy-of" in s for s in pair)
    ]
    planted_at = [ranked.index(pair) for pair in planted]
    assert max(planted_at) < min(honest_pairs), [
        (p.first, p.second, round(p.weight)) for p in report.overall[:6]
    ]
    page = (tmp_path / "out" / "similarity.html").read_text(encoding="utf-8")
    assert "copy-of-allowed-idioms-a" in page and "<mark>" in page
    assert page.count("class='pair'") >= 2  # side by side, per answer cell
    csv = (tmp_path / "out" / "similarity.csv").read_text(encoding="utf-8")
    assert csv.startswith("cell,student_a,student_b,similarity,tokens")


def test_the_template_and_the_reference_are_not_shared_code(tmp_path):
    lesson = "06_linear_regression"
    reference = next(s for s in all_samples([lesson]) if s.name == "reference")
    folder = tmp_path / "in"
    write_samples(folder, samples=[reference])
    shutil.copyfile(
        folder / f"reference_{lesson}.ipynb", folder / f"twin_{lesson}.ipynb"
    )
    blank = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
    for student in ("ann", "ben"):
        shutil.copyfile(blank, folder / f"{student}_{lesson}.ipynb")
    report = similarity(lesson, folder, tmp_path / "out")
    assert report.students == 4 and report.pairs == [] and report.overall == []
    assert (
        "No two answers share code"
        in (tmp_path / "out" / "similarity.html").read_text()
    )


def test_the_command_prints_the_top_pairs_and_the_report(tmp_path, capsys):
    from autograder.cli import main

    lesson = "06_linear_regression"
    chosen = [s for s in all_samples([lesson]) if s.name.startswith("allowed-idioms")]
    write_samples(tmp_path / "in", samples=chosen)
    code = main(
        ["similarity", "06", str(tmp_path / "in"), "--out", str(tmp_path / "o")]
    )
    out = capsys.readouterr().out
    assert code == 0 and "3 submission(s) of 06_linear_regression compared" in out
    assert f"report: {tmp_path / 'o' / 'similarity.html'}" in out
    assert main(["similarity", "06", str(tmp_path / "in"), "--top", "0"]) != 0


def pad(code: str) -> str:
    """``code`` with a dead assignment before every statement."""
    tree = ast.parse(code)
    count = iter(range(10**6))
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if body and all(isinstance(s, ast.stmt) for s in body):
                padded = []
                for statement in body:
                    k = next(count)
                    padded += [ast.parse(f"unused_{k} = {k} * 2").body[0], statement]
                setattr(node, field, padded)
    return ast.unparse(ast.fix_missing_locations(tree))


def test_a_copy_padded_with_dead_statements_ranks_as_high_as_a_renamed_one():
    from autograder.classgrade.similarity import compare_answers

    lesson = "06_linear_regression"
    honest = next(s for s in all_samples([lesson]) if s.name == "allowed-idioms-a")
    answers = {
        "honest": honest.answers,
        "renamed": {c: disguise(code) for c, code in honest.answers.items()},
        "padded": {c: pad(code) for c, code in honest.answers.items()},
    }
    assert answers["padded"] != honest.answers
    _, overall = compare_answers(answers, {}, {})
    share = {frozenset((p.first, p.second)): p.similarity for p in overall}
    renamed = share[frozenset(("honest", "renamed"))]
    assert renamed > 0.9
    assert share[frozenset(("honest", "padded"))] >= renamed
