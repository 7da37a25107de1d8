"""course grade --cluster: a class graded on Dask workers, with faults.

The slow test starts ``dask scheduler`` and two ``dask worker`` processes on
127.0.0.1, as an instructor would on separate machines, and checks what must
hold when workers and the scheduler die: nothing lost, nothing graded twice,
a submission that kills its worker twice recorded as an error, a rerun that
resumes, and per test cell the same results as the local pool.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import pytest

from autograder.classgrade import Graded, Result, grade_class
from autograder.classgrade.cluster import check_workers
from autograder.classgrade.cluster_reach import parse
from autograder.classgrade.wire import Malformed, from_json, to_json
from autograder.cli import main
from autograder.samples import all_samples, write_samples

LESSON = "01_devices"
HERE = Path(__file__).parent
DASK = Path(sys.executable).parent / "dask"
#: the eight submissions: full marks, blank, wrong answers, tampering, errors
CLASS = (
    "reference",
    "blank",
    "forgets-mps",
    "returns-str",
    "edits-tests",
    "kills-the-kernel",
    "other-lesson",
    "float-sqrt",
)
POISON = "zz-poison"  # the preload kills each worker it reaches


# -- without a cluster -----------------------------------------------------------


def test_addresses_plain_tcp_is_refused_off_this_machine():
    assert parse("local:3") == ("local", 3)
    assert parse("tcp://127.0.0.1:8786") == ("remote", "tcp://127.0.0.1:8786")
    assert parse("localhost:8786") == ("remote", "tcp://localhost:8786")
    assert parse("tls://10.0.0.5:8786")[0] == "remote"
    with pytest.raises(ValueError, match="plain TCP.*--allow-plain-tcp"):
        parse("tcp://10.0.0.5:8786")
    assert parse("tcp://10.0.0.5:8786", allow_plain_tcp=True)[0] == "remote"
    for bad in ("local:0", "local:x", "udp://h:1", "tcp://:8786"):
        with pytest.raises(ValueError, match="--cluster"):
            parse(bad)


def _graded() -> Graded:
    result = Result("ann", LESSON, "graded", 3.0, 4.0, {"01-a-test": [3, 4]}, "d1")
    result.release = "r1"
    return Graded(result, json.dumps({"cells": []}), "<p>page</p>")


def test_a_result_is_checked_against_the_schema_before_it_is_kept():
    good = to_json(_graded())
    back, refused = from_json(good, "ann", LESSON, "d1", "r1")
    assert back.result == _graded().result and back.page == "<p>page</p>"
    assert refused == ""
    assert (
        from_json(to_json(_graded(), "no Landlock"), "ann", LESSON, "d1", "r1")[1]
        == "no Landlock"
    )
    cases = {
        "another student": ("bob", LESSON, "d1", "r1", good),
        "another file": ("ann", LESSON, "d2", "r1", good),
        "other rules": ("ann", LESSON, "d1", "r2", good),
        "not JSON text": ("ann", LESSON, "d1", "r1", b"\x80\x04pickle"),
        "not JSON": ("ann", LESSON, "d1", "r1", "{nope"),
        "NaN": (
            "ann",
            LESSON,
            "d1",
            "r1",
            good.replace('"score": 3.0', '"score": NaN'),
        ),
    }
    for mutate in (
        lambda d: d["result"].update(score="3"),  # a string for a float
        lambda d: d["result"].update(per_question={"q": [1]}),
        lambda d: d["result"].update(status="excellent"),
        lambda d: d["result"].update(extra=1),
        # fields only the main process sets: a worker cannot point the
        # feedback copy at a file of the main machine, or forge lateness
        lambda d: d["result"].update(feedback="/home/grader/.ssh/id_rsa"),
        lambda d: d["result"].update(late_penalty=-5.0),
        lambda d: d["result"].update(gradebook_score=99.0),
        lambda d: d.update(notebook="not a notebook"),
        lambda d: d.update(format=2),
    ):
        bad = json.loads(good)
        mutate(bad)
        cases[str(bad)[:60]] = ("ann", LESSON, "d1", "r1", json.dumps(bad))
    for why, (student, lesson, digest, rules, text) in cases.items():
        with pytest.raises(Malformed):
            from_json(text, student, lesson, digest, rules)
        assert why  # each case named by what it breaks


class _FakeClient:
    """What :func:`check_workers` asks of a Dask client, answered by hand."""

    def __init__(self, versions, facts=None):
        self.versions, self.facts = versions, facts

    def wait_for_workers(self, count, timeout):
        pass

    def run(self, function, *args, on_error="raise"):
        if args:  # importlib.metadata.version(PACKAGE)
            return self.versions
        return self.facts


def test_a_worker_without_the_course_or_with_weaker_confinement_is_refused():
    from importlib.metadata import version

    from autograder.classgrade import remote

    mine = version(remote.PACKAGE)
    missing = _FakeClient({"tcp://w1:1": PackageNotFoundError(remote.PACKAGE)})
    with pytest.raises(ValueError, match=f"lacks the course.*gpu-course=={mine}"):
        check_workers(missing, "tcp://s:1", True, True, False)
    here = remote.facts()
    ok = {"w": mine}
    for change, message in (
        ({"version": "0.0.1"}, f"runs gpu-course 0.0.1.*=={mine}"),
        ({"library": "x"}, "NumPy or torch"),
        ({"grader": "x"}, "grader code"),
        ({"versions": {**here["versions"], "nbgrader": "0.1"}}, "nbgrader 0.1"),
    ):
        other = _FakeClient(ok, {"w": {**here, **change}})
        with pytest.raises(ValueError, match=message):
            check_workers(other, "tcp://s:1", True, True, False)
    for weak, message in (
        ({"landlock": 0}, "Landlock ABI 0.*--allow-weak-workers"),
        ({"landlock": 3}, "Landlock ABI 3 .*, where [4-9] or later"),  # may open TCP
        ({"namespaces": False}, "no user namespaces"),
    ):
        weaker = _FakeClient(ok, {"w": {**here, "landlock": 9, **weak}})
        with pytest.raises(ValueError, match=message):
            check_workers(weaker, "tcp://s:1", True, True, False)
    weakest = _FakeClient(ok, {"w": {**here, "landlock": 0, "namespaces": False}})
    need = check_workers(weakest, "tcp://s:1", True, True, True)
    assert need["landlock"] == 0 and need["namespaces"] is False
    assert check_workers(weakest, "tcp://s:1", False, False, False)["landlock"] == 0


def test_with_a_cluster_this_machine_needs_no_namespaces(tmp_path, monkeypatch):
    """Kernels run on the workers: a formgrader pod without user namespaces
    may send them work (the workers are checked instead)."""
    from autograder.grading.kernel import namespaces

    def refused(required=True):
        raise namespaces.NamespaceError("no user namespaces here")

    monkeypatch.setattr(namespaces, "use", refused)
    (tmp_path / "none").mkdir()
    with pytest.raises(ValueError, match="no user namespaces here"):
        grade_class(tmp_path / "none", LESSON, out_dir=tmp_path / "a", progress=False)
    report = grade_class(
        tmp_path / "none",
        LESSON,
        out_dir=tmp_path / "b",
        cluster="local:1",
        progress=False,
    )
    assert "cluster's workers" in report.kernels


def test_cluster_options_are_checked_on_the_command_line(tmp_path, capsys):
    out = ["--out", str(tmp_path / "out")]
    assert main(["grade", str(tmp_path), "--allow-plain-tcp", *out]) == 2
    assert "go with --cluster" in capsys.readouterr().err
    far = ["--cluster", "tcp://10.1.2.3:8786"]
    assert main(["grade", str(tmp_path), *far, *out]) == 2
    assert "--allow-plain-tcp" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    text = capsys.readouterr().out
    for option in ("--cluster", "--allow-plain-tcp", "--allow-weak-workers"):
        assert option in text


# -- a real cluster ----------------------------------------------------------------


class _Processes:
    """The scheduler and workers, each in its own process group."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.started = folder, {}
        self.file = folder / "scheduler.json"

    def start(self, name: str, *argv: str, env: dict | None = None) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - kept open
        self.started[name] = subprocess.Popen(
            [str(DASK), *argv],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
        )

    def scheduler(self) -> str:
        self.file.unlink(missing_ok=True)
        self.start(
            "scheduler",
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(self.file),
        )
        for _ in range(300):
            if self.file.is_file():
                try:
                    return json.loads(self.file.read_text())["address"]
                except ValueError:
                    pass
            time.sleep(0.1)
        raise AssertionError("the scheduler did not start")

    def worker(self, name: str, crash: str = "") -> None:
        self.start(
            name,
            "worker",
            "--scheduler-file",
            str(self.file),
            "--nthreads",
            "1",
            "--no-dashboard",
            "--name",
            name,
            "--host",
            "127.0.0.1",
            "--preload",
            str(HERE / "cluster_crash.py"),
            env={"COURSE_TEST_CRASH_STUDENT": crash},
        )

    def kill(self, name: str) -> None:
        try:
            os.killpg(self.started[name].pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.started[name].wait()

    def close(self) -> None:
        for name in self.started:
            self.kill(name)


def _class(folder: Path) -> dict:
    by_name = {s.name: s for s in all_samples([LESSON])}
    samples = [by_name[name] for name in CLASS]
    write_samples(folder, samples=samples)
    shutil.copyfile(
        folder / f"reference_{LESSON}.ipynb", folder / f"{POISON}_{LESSON}.ipynb"
    )
    return {s.name: s for s in samples}


def _rows(out: Path) -> list[str]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return [row["student"] for row in csv.DictReader(handle)]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_class_on_dask_workers_that_die_and_a_scheduler_that_goes(tmp_path):
    """Items 3 and 4 of a cluster batch, for real: two workers on 127.0.0.1."""
    source, samples = tmp_path / "class", _class(tmp_path / "class")
    cluster = _Processes(tmp_path)
    try:
        address = cluster.scheduler()
        cluster.worker("w1", crash=POISON)
        cluster.worker("w2", crash=POISON)
        seen: list[str] = []

        def killing_w1(result):
            seen.append(result.student)
            if len(seen) == 2:  # partway: w1 dies, with the task it holds
                cluster.kill("w1")

        out = tmp_path / "out"
        report = grade_class(
            source,
            LESSON,
            out_dir=out,
            cluster=address,
            on_result=killing_w1,
            progress=False,
        )
        # each submission graded exactly once, none lost
        assert sorted(seen) == sorted([*samples, POISON])
        assert sorted(_rows(out)) == sorted(seen)
        got = {r.student: r for r in report.results}
        for name, sample in samples.items():
            assert (got[name].status, got[name].score) == (sample.status, sample.score)
        # the submission that killed its worker twice: an error, the rest went on
        assert got[POISON].status == "error" and "died" in got[POISON].message

        # the same class on the local pool: the same results, test cell by cell
        local = grade_class(
            source, LESSON, out_dir=tmp_path / "local", jobs=2, progress=False
        )
        pool = {r.student: r for r in local.results}
        for name in samples:
            assert got[name].per_question == pool[name].per_question, name
            assert got[name].flags == pool[name].flags, name
            assert got[name].hints == pool[name].hints, name

        # the scheduler goes: the batch stops with a clear message, and a
        # rerun resumes without grading again what was kept
        first: list[str] = []

        def killing_scheduler(result):
            first.append(result.student)
            if len(first) == 2:
                cluster.kill("scheduler")

        resumed = tmp_path / "resumed"
        with pytest.raises(ValueError, match="went away.*run the same command"):
            grade_class(
                source,
                LESSON,
                out_dir=resumed,
                cluster=address,
                on_result=killing_scheduler,
                progress=False,
            )
        kept = {p.stem for p in (resumed / "results" / LESSON).glob("*.json")}
        assert set(first) <= kept
        cluster.close()
        again: list[str] = []
        grade_class(
            source,
            LESSON,
            out_dir=resumed,
            cluster="local:2",
            on_result=lambda r: again.append(r.student),
            progress=False,
        )
        graded_before = {
            name
            for name in kept
            if json.loads((resumed / "results" / LESSON / f"{name}.json").read_text())[
                "status"
            ]
            == "graded"
        }
        assert not graded_before & set(again)
        assert sorted(_rows(resumed)) == sorted([*samples, POISON])
        # --cluster local:2 (its part of the class) against --jobs 2, cell by cell
        for name in set(again) & set(samples):
            mine = json.loads(
                (resumed / "results" / LESSON / f"{name}.json").read_text()
            )
            assert mine["per_question"] == pool[name].per_question, name
    finally:
        cluster.close()
