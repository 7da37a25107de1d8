"""The measured run without a kernel: the answer rules, the program, the harness.

The harness runs here in the test's own process, as a kernel would run it, with
its display function replaced by a list (no kernel is started).
"""

from __future__ import annotations

import json

import nbformat
import pytest

from autograder.grading import harness
from autograder.grading.answer_rules import answer_definitions
from autograder.grading.measured import build
from autograder.lessons import REPO_ROOT, lesson_sources, source_to_notebook
from course.results import MIME


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("import sys\ndef f():\n    return sys.argv", "`sys` cannot be imported"),
        ("def f(x):\n    return x.__class__.__mro__", "`.__class__` is private"),
        ("def f(g):\n    return g.__globals__", "`.__globals__` is private"),
        ("def f(t):\n    return t._C", "`._C` is private"),
        ("def f(x):\n    return getattr(x, '__dict__')", "getattr needs a public"),
        ("def f(x, n):\n    return getattr(x, n)", "getattr needs a public"),
        ("def f(x):\n    setattr(x, 'a', 1)", "`setattr` may not be used"),
        ("def f():\n    global check_equal\n    check_equal = 1", "`global` is not"),
        ("import functools\n@functools.cache\ndef f():\n    pass", "only @cuda.jit"),
        ("def f(x=print('hi')):\n    pass", "default arguments of f()"),
        ("def f():\n    import threading", "`threading` cannot be imported"),
        ("def f():\n    return globals()", "`globals` may not be used"),
        ("def f():\n    return (lambda: 0).gi_frame", "`.gi_frame` is private"),
        ("def checked():\n    pass", "`checked` is defined by the lesson"),
        ("import course.gpumodel\ndef f():\n    course.gpumodel.trace = None",
         "belongs to a library or the lesson"),
        ("class A:\n    x = print('hi')", "class A: its body may hold only"),
        # ways to frames, the namespace or code that public names open
        ("import os\ndef f():\n    return os.sys.modules", "`.sys` may not be used"),
        ("import dataclasses\ndef f():\n    return dataclasses.inspect.currentframe()",
         "`.inspect` may not be used"),
        ("def f(tb):\n    return getattr(tb, 'tb_frame')", "getattr needs a public"),
        ("import string\n", "`string` cannot be imported"),
        ("def f(g):\n    return '{0.__globals__}'.format(g)", "special attribute"),
        ("import typing\ndef f(v: 'globals()'):\n    typing.get_type_hints(f)",
         "annotations are names, not strings"),
        ("class H:\n    def __init_subclass__(cls):\n        pass",
         "__init_subclass__ is a special method"),
        # an original taken before the counters patch it is not counted
        ("item_of = torch.Tensor.item\n", "`torch.Tensor.item` may not be aliased"),
        ("def f(x, cpu=torch.Tensor.cpu):\n    pass", "as a default: call it inside"),
        ("from course.fakecupy import asnumpy\n", "import the module and write"),
    ],
)  # fmt: skip
def test_the_rules_refuse_what_could_reach_the_measuring(source, problem):
    found = answer_definitions(source, lesson_names={"checked", "course"})
    assert any(problem in p for p in found.refused), found.refused
    assert found.source == ""  # a refused cell loads nothing


def test_the_rules_keep_definitions_and_skip_the_rest():
    source = (
        "import numpy as np\nfrom numba import cuda\nLIMIT = (1, 2)\n"
        "print('a demo')\nget_ipython().ast_transformers.append(None)\n"
        "@cuda.jit\ndef kernel(x):\n    x[cuda.grid(1)] = 1\n"
        "@cuda.jit(device=True)\ndef helper(a):\n    return a\n"
        "def fit(X, dtype=np.float32, n=3):\n    return X.astype(dtype)\n"
        "class Net(torch.nn.Module):\n    SIZE = 3\n"
        "    def __init__(self):\n        super().__init__()\n        self._w = 1\n"
        "    def __call__(self, x):\n        return x * self._w\n"
    )
    found = answer_definitions(source, lesson_names={"torch"})
    assert not found.refused
    assert found.skipped == 2
    assert found.names == ["np", "cuda", "LIMIT", "kernel", "helper", "fit", "Net"]
    assert "print" not in found.source and "get_ipython" not in found.source


def test_an_alias_is_a_definition_too():
    found = answer_definitions("def f():\n    pass\n_f = f\nxp = np.linalg\n", {"np"})
    assert not found.refused and found.names == ["f", "_f", "xp"]
    private = answer_definitions("c = torch._C\n", {"torch"})
    assert "`._C` is private" in private.refused[0]


def test_the_rules_let_an_answer_define_what_its_released_cell_defines():
    found = answer_definitions("LIMIT = 3\ndef f():\n    pass", {"LIMIT"}, {"LIMIT"})
    assert not found.refused


def _release(source):
    stem = source.stem
    return nbformat.read(REPO_ROOT / "notebooks" / stem / f"{stem}.ipynb", 4)


@pytest.mark.parametrize("source", lesson_sources(), ids=lambda p: p.stem)
def test_every_reference_answer_follows_the_rules(source):
    program = build(source_to_notebook(source), _release(source))
    assert program.refused == {}
    kinds = [u["kind"] for u in program.units]
    assert kinds.count("test") == len(program.tests) > 0
    assert "answer" in kinds


def test_the_program_keeps_what_the_tests_need_and_leaves_demos_out():
    source = next(p for p in lesson_sources() if p.stem == "03_sync_trap")
    program = build(source_to_notebook(source), _release(source))
    lesson = "\n".join(u["source"] for u in program.units if u["kind"] == "lesson")
    assert "def make_model" in lesson and "X = " in lesson  # the tests use them
    assert "cpu_times" not in lesson and "load_recorded('bench')" not in lesson


def _run(units, monkeypatch, timeout=5):
    published = []
    monkeypatch.setattr(
        "IPython.display.publish_display_data", lambda data, **k: published.append(data)
    )
    for module in ("course.checks", "course.results"):  # the harness replaces them
        import importlib

        mod = importlib.import_module(module)
        for name, value in list(vars(mod).items()):
            monkeypatch.setattr(mod, name, value)
    program = {"nonce": "n", "timeout": timeout, "units": units}
    harness.run(json.dumps(program))
    return {d[MIME]["record"]["gid"]: d[MIME]["record"] for d in published}


def _unit(kind, source, gid=None):
    return {"kind": kind, "gid": gid, "name": f"<{kind}>", "source": source}


def test_the_harness_records_checks_asserts_and_results(monkeypatch):
    setup = "from course.checks import check_close, check_equal\n"
    test = (
        "check_equal(double(2), 4, 'double(2)')\n"
        "check_close(double(0.5), 1.0, rtol=1e-3)\nassert double(1) == 2\n"
        "from course.results import submit\nsubmit({'x': double(3)})\n"
    )
    records = _run(
        [
            _unit("lesson", setup),
            _unit("answer", "def double(x):\n    return 2 * x"),
            _unit("test", test, "01-t"),
        ],
        monkeypatch,
    )
    record = records["01-t"]
    assert record["error"] is None and "tampered" not in record
    assert [c["c"] for c in record["checks"]] == [
        "check_equal",
        "check_close",
        "assert",
    ]
    assert record["checks"][1]["rtol"] == {"t": "float", "v": "0.001"}
    assert record["results"][0]["t"] == "dict"


def test_a_failed_check_is_the_message_the_student_reads(monkeypatch):
    records = _run(
        [
            _unit("lesson", "from course.checks import check_equal"),
            _unit("test", "check_equal(3, 4, 'three')", "01-t"),
            _unit("test", "assert 1 == 2, 'one is not two'", "01-u"),
        ],
        monkeypatch,
    )
    assert "three is 3, expected 4" in records["01-t"]["error"]
    assert records["01-t"]["checks"] == [{"c": "check_equal", "ok": False}]
    assert "one is not two" in records["01-u"]["error"]


def test_a_call_that_changes_the_measuring_taints_its_test(monkeypatch):
    """However the answer got hold of the checks, changing them is seen after
    the call, undone, and costs that test (and only that test) its points."""
    answer = "def sneaky(checks):\n    checks.check_equal = lambda *a, **k: None\n"
    test = "import course.checks\nsneaky(course.checks)\n"
    records = _run(
        [
            _unit(
                "lesson", "import course.checks\nfrom course.checks import check_equal"
            ),
            _unit("answer", answer),
            _unit("test", test, "01-t"),
            _unit("test", "course.checks.check_equal(1, 2)", "01-u"),
        ],
        monkeypatch,
    )
    assert "course.checks.check_equal" in records["01-t"]["tampered"]
    assert "tampered" not in records["01-u"]  # put back: the next test is fair
    assert "is 1, expected 2" in records["01-u"]["error"]


def test_a_changed_lesson_name_or_global_hook_taints_the_test(monkeypatch):
    """Defence in depth: names the lesson bound (its checks, data) and global
    hooks (torch's module hooks, NumPy's error callback) are watched too."""
    answer = (
        "def rebind():\n    globals()['check_equal'] = lambda *a, **k: None\n"
        "def hook():\n    import torch\n"
        "    torch.nn.modules.module.register_module_forward_hook(lambda *a: None)\n"
    )
    records = _run(
        [
            _unit("lesson", "from course.checks import check_equal"),
            _unit("answer", answer),
            _unit("test", "rebind()", "01-t"),
            _unit("test", "check_equal(1, 2)", "01-u"),
            _unit("test", "hook()", "01-v"),
        ],
        monkeypatch,
    )
    assert "the lesson's check_equal" in records["01-t"]["tampered"]
    assert "is 1, expected 2" in records["01-u"]["error"]  # put back
    assert "_global_forward_hooks" in records["01-v"]["tampered"]
    from torch.nn.modules import module

    module._global_forward_hooks.clear()


def test_an_answer_may_bind_again_what_its_released_cell_binds(monkeypatch):
    records = _run(
        [
            _unit("lesson", "from course.checks import check_equal\nKEYS = ('a',)"),
            _unit("answer", "KEYS = ('a',)\ndef keys():\n    return KEYS"),
            _unit("test", "check_equal(keys(), ('a',))", "01-t"),
        ],
        monkeypatch,
    )
    assert records["01-t"]["error"] is None and "tampered" not in records["01-t"]


def test_a_test_that_runs_too_long_is_stopped(monkeypatch):
    records = _run(
        [
            _unit("test", "while True:\n    pass", "01-t"),
            _unit("test", "x = 1", "01-u"),
        ],
        monkeypatch,
        timeout=0.5,
    )
    assert "ran past the time" in records["01-t"]["error"]
    assert records["01-u"]["error"] is None


def test_an_answer_may_import_what_the_lesson_imports_but_not_rebind_it():
    lesson = {"np": "numpy", "checked": "course.cudasim.race_check"}
    again = answer_definitions("import numpy as np\nimport os\n", {"np", "os"},
                               lesson_imports=dict(lesson, os="os"))  # fmt: skip
    assert not again.refused
    other = answer_definitions(
        "from contextlib import nullcontext as checked\n", {"checked"},
        lesson_imports=lesson,
    )  # fmt: skip
    assert "`checked` is defined by the lesson" in other.refused[0]


def test_the_guard_cells_run_as_written() -> None:
    """The two cells reassembly adds run without error in a fresh interpreter
    (in a subprocess: ``install`` turns ``os._exit`` into an error)."""
    import subprocess
    import sys

    from autograder.grading.guard import install_source, restore_source

    code = f"{install_source()}\n{restore_source()}\nprint('restored')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, cwd=REPO_ROOT, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr[-800:]
    assert done.stdout.strip() == "restored"


def test_the_harness_puts_back_every_hook_it_set(monkeypatch):
    """The notebook's own cells run next in the same kernel: the recorders,
    the launch watch and the unit timer are gone when the run ends."""
    import signal

    import numpy.testing

    import course.checks
    import course.results

    def handler(*_):
        return None

    monkeypatch.setattr(signal, "getsignal", lambda sig: handler)
    installed = []
    monkeypatch.setattr(signal, "signal", lambda sig, h: installed.append(h))
    before = (
        course.checks.check_equal,
        course.results.submit,
        numpy.testing.assert_allclose,
    )
    _run(
        [_unit("lesson", "from course.checks import check_equal"),
         _unit("test", "check_equal(1, 1)", "01-t")],
        monkeypatch,
    )  # fmt: skip
    after = (
        course.checks.check_equal,
        course.results.submit,
        numpy.testing.assert_allclose,
    )
    assert after == before
    assert installed[-1] is handler  # SIGALRM as it was
