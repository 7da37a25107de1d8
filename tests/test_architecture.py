"""The one allowed direction of imports, and a student wheel without the grader."""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest

from autograder.lessons import REPO_ROOT

COURSE = REPO_ROOT / "course"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (at any depth), with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_the_student_library_never_imports_the_grader():
    wrong = [
        f"{path.relative_to(REPO_ROOT)}:{line} imports {name}"
        for path in sorted(COURSE.rglob("*.py"))
        for line, name in _imports(path)
        if name.split(".")[0] == "autograder"
    ]
    assert not wrong, "course/ must not import autograder:\n" + "\n".join(wrong)


def test_the_check_sees_every_kind_of_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import autograder\n"
        "def f():\n"
        "    from autograder.lessons import x\n"
        "    import importlib; importlib.import_module('autograder.cli')\n"
    )
    names = [name for _, name in _imports(probe)]
    assert names.count("autograder") == 1
    assert "autograder.lessons" in names and "autograder.cli" in names


@pytest.mark.slow
def test_the_student_wheel_holds_the_library_and_nothing_of_the_grader(tmp_path):
    from autograder.publish.bundle import build_wheel

    wheel = build_wheel(tmp_path / "wheel")  # from a copy: nothing lands in the repo
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        text = {n: archive.read(n).decode("utf-8", "replace") for n in names}
    packages = {n.split("/")[0] for n in names if not n.split("/")[0].endswith("-info")}
    assert packages == {"course"}, packages
    ours = {p.relative_to(REPO_ROOT).as_posix() for p in COURSE.glob("*.py")}
    assert ours <= set(names), sorted(ours - set(names))
    assert any(n.startswith("course/recorded/") for n in names)
    for name, body in text.items():
        for forbidden in ("BEGIN HIDDEN", "BEGIN SOLUTION", "autograder.", "_ref_"):
            assert forbidden not in body, f"{name} holds {forbidden!r}"
    metadata = next(body for n, body in text.items() if n.endswith("METADATA"))
    assert "nbgrader" not in metadata and "jupyterlab" not in metadata


def test_the_instructor_package_names_every_module_it_has():
    """``autograder/__init__.py`` names every part and every module in it;
    each part's own docstring names its modules too."""
    import importlib
    import pkgutil
    import re

    import autograder

    def unnamed(package, doc: str) -> list[str]:
        return [
            m.name
            for m in pkgutil.iter_modules(package.__path__)
            if m.name not in ("__main__", "nbgrader_config")
            and not re.search(rf"``{m.name}``|autograder\.{m.name}`|{m.name}/", doc)
        ]

    top = autograder.__doc__ or ""
    assert not unnamed(autograder, top), (
        f"autograder/__init__.py: {unnamed(autograder, top)}"
    )
    for part in sorted(set(ALLOWED) - {"samples"}):
        package = importlib.import_module(f"autograder.{part}")
        missing = [m for m in unnamed(package, top) if m not in (package.__doc__ or "")]
        assert not missing, f"autograder/{part}: no docstring names {missing}"


#: Which parts of ``autograder`` each part may import (ARCHITECTURE.md).
ALLOWED = {
    "cli": {
        "classgrade",
        "config",
        "grading",
        "lessons",
        "measure",
        "publish",
        "samples",
    },
    "measure": {"classgrade", "config", "grading", "lessons", "publish", "samples"},
    "publish": {"classgrade", "config", "grading", "lessons", "samples"},
    "classgrade": {"config", "grading", "lessons"},
    "grading": {"config", "lessons"},
    "lessons": {"config"},
    "config": set(),
    "samples": {"lessons"},
}


def test_the_instructor_parts_import_downwards_only():
    """Every import between the folders of ``autograder`` follows
    :data:`ALLOWED`; ``grade_notebooks`` (``grading/__init__.py``), which is
    ``course grade`` for a few notebooks, alone reaches ``classgrade``."""
    root = REPO_ROOT / "autograder"
    wrong = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if len(parts) == 1 or parts[0] == "jupyter":
            continue  # __main__ and the nbgrader config: not parts
        for line, name in _imports(path):
            target = name.split(".")[1] if name.startswith("autograder.") else None
            if target is None or target == parts[0] or target in ALLOWED[parts[0]]:
                continue
            if path == root / "grading" / "__init__.py" and target == "classgrade":
                continue
            wrong.append(f"{path.relative_to(REPO_ROOT)}:{line} imports {name}")
    assert not wrong, "\n".join(wrong)


def _module_graph(package: str = "autograder") -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of it that it imports, at
    any depth, ``TYPE_CHECKING`` ones included (a name imported from a
    package counts as its submodule where one has that name)."""
    root = REPO_ROOT / package
    files = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        files[".".join(parts[:-1] if package else parts)] = (path, package)

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, (path, package) in files.items():
        here = module if package else module.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                for alias in node.names:
                    whole = f"{base}.{alias.name}"
                    targets.add(whole if whole in files else base)
        graph[module] = {t for n in targets if (t := known(n)) and t != module}
    return graph


def test_no_module_of_the_instructor_package_imports_itself_back():
    """No import cycle between modules of ``autograder``, lazy imports
    included: each module can be read knowing only what it imports."""
    import graphlib

    try:
        graphlib.TopologicalSorter(_module_graph()).prepare()
    except graphlib.CycleError as exc:
        pytest.fail("an import cycle: " + " -> ".join(exc.args[1]))


def test_the_cycle_check_sees_lazy_imports_and_finds_a_cycle():
    import graphlib

    graph = {"a": {"b"}, "b": {"a"}}
    with pytest.raises(graphlib.CycleError):
        graphlib.TopologicalSorter(graph).prepare()
    assert "autograder.classgrade.batch" in _module_graph()
    assert (
        "autograder.classgrade.pool" in _module_graph()["autograder.classgrade.batch"]
    )


def _private_uses() -> list[list[str]]:
    """The rows of ARCHITECTURE.md's table of private library members."""
    text = (REPO_ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text.split("## Private parts of libraries", 1)[1].split("\n## ", 1)[0]
    return [
        [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        for line in table.splitlines()
        if line.startswith("| ") and "`" in line
    ]


def _member(path: str):
    import importlib

    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ImportError(path)


def test_each_private_member_the_course_uses_is_still_there_as_listed():
    """Every row of the table: the member exists, with the parameters listed
    (an attribute: its owner's code still names it)."""
    rows = _private_uses()
    assert len(rows) >= 10, "the table of private members was not found"
    changed = _changed(rows)
    assert not changed, "read these members' new code, then ARCHITECTURE.md:\n" + (
        "\n".join(changed)
    )


def _changed(rows: list[list[str]]) -> list[str]:
    import inspect

    changed = []
    for _version, path, params, *_ in rows:
        owner, name = _member(path)
        if params == "attribute":
            found = name in inspect.getsource(owner) or hasattr(owner, name)
            if not found:
                changed.append(f"{path}: gone")
            continue
        member = getattr(owner, name, None)
        if member is None:
            changed.append(f"{path}: gone")
            continue
        signature = inspect.signature(member)
        have = (
            "("
            + ", ".join(
                str(p.replace(annotation=inspect.Parameter.empty))
                for p in signature.parameters.values()
            )
            + ")"
        )
        if have != params:
            changed.append(f"{path}: now {have}, listed {params}")
    return changed


def test_the_private_member_check_fails_on_a_changed_or_missing_member():
    listed = "nbgrader.preprocessors.OverwriteCells.preprocess"
    assert _changed([["v", listed, "(self, nb, resources)"]]) == []
    (wrong,) = _changed([["v", listed, "(self, nb)"]])
    assert "now (self, nb, resources), listed (self, nb)" in wrong
    gone = "nbgrader.preprocessors.OverwriteCells._no_such_member"
    assert _changed([["v", gone, "(self)"]]) == [f"{gone}: gone"]
    with pytest.raises(ImportError):
        _member("no_such_library.Thing.method")


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The graph's strongly connected parts of more than one module."""
    found, order, low, stack = [], {}, {}, []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            part = set()
            while True:
                other = stack.pop()
                part.add(other)
                if other == node:
                    break
            if len(part) > 1:
                found.append(part)

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_module_of_the_student_library_imports_itself_back():
    """``course/`` read as ``autograder/`` is: no circle of imports, lazy and
    ``TYPE_CHECKING`` ones included."""
    assert _circles(_module_graph("course")) == []


def test_the_circle_check_finds_a_circle_and_its_members():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [{"a", "b", "c"}]


def test_no_module_of_the_student_library_imports_another_s_private_name():
    """A name that starts with ``_`` belongs to its module alone (gettext's
    ``_`` excepted): what another module needs is public."""
    found = []
    for path in sorted(COURSE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "course"
            ):
                found += [
                    f"{path.name}:{node.lineno} {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and alias.name != "_"
                ]
    assert found == []


def test_the_simulated_gpu_s_layers_in_architecture_md_hold():
    """Each module of the layers table imports only modules of lower rows."""
    import re

    text = (REPO_ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d) \| (.+) \|$", text, re.M)
    layer = {
        f"course.{name}": int(number)
        for number, names in rows
        for name in re.findall(r"`(\w+)`", names)
    }
    assert len(layer) >= 19, layer
    graph = _module_graph("course")
    for module, level in layer.items():
        assert module in graph, f"{module} is in the table but not in course/"
        for other in graph[module] & layer.keys():
            assert layer[other] < level, f"{module} ({level}) imports {other}"
