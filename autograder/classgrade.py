"""Grade a whole class: parallel, resumable nbgrader autograde, with reports.

``course grade SOURCE`` grades every submission in SOURCE, which may be

* an nbgrader layout: ``submitted/<student>/<assignment>/<notebook>.ipynb``
  (SOURCE is the folder holding ``submitted/``, or ``submitted/`` itself);
* a folder of loose notebooks, as a learning platform exports them; the student id
  is the file name without the assignment name (or from ``--map file.csv``);
* a ``.zip`` of either.

Every submission is graded by nbgrader's own autograde, in a job folder of its
own that holds a copy of the assignment's gradebook and that one notebook, by a
pool of worker processes. Before grading, the notebook is *reassembled* on the
released student edition: the student's answer cells are taken over, every
test and locked cell comes from the original, so deleted, reordered, retyped or
edited test cells change nothing (and are flagged). Each result is written to
``results/<assignment>/<student>.json`` the moment it is known, so an interrupted
run loses nothing and a rerun grades only what is missing or changed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import sys
import time
import zipfile
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.chain.reassemble import reassemble
from autograder.lessons import find_lesson, lesson_names

DEFAULT_TIMEOUT = 60
DEFAULT_MEMORY_MB = 4096


@dataclass(frozen=True)
class Submission:
    """One notebook to grade."""

    student: str
    assignment: str
    path: Path
    digest: str


@dataclass
class Result:
    """The outcome for one submission, as stored in its JSON file."""

    student: str
    assignment: str
    status: str  # graded | unreadable | wrong-assignment | error
    score: float = 0.0
    max_score: float = 0.0
    per_question: dict[str, list[float]] = field(default_factory=dict)
    digest: str = ""
    flags: list[str] = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0
    feedback: str = ""
    hints: dict[str, str] = field(default_factory=dict)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _student_id(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._@-]+", "-", text).strip("-._")
    return cleaned[:80]


def _shown(name: str) -> str:
    """A file name as text that can be printed and written to UTF-8 files.

    A name that is not valid UTF-8 on disk reaches Python with surrogate escapes,
    which cannot be printed or written; its bad bytes are shown as ``\\xNN``.
    """
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _extract_zip(archive: Path, target: Path) -> tuple[Path, list[str]]:
    """Unpack safely (no absolute paths, no ``..``); return folder and problems."""
    problems = []
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            parts = [p for p in Path(info.filename).parts if p not in ("", ".")]
            if info.is_dir() or not parts:
                continue
            if ".." in parts or Path(info.filename).is_absolute():
                problems.append(f"{info.filename}: unsafe path in the zip, skipped")
                continue
            safe = [_student_id(p) or "unnamed" for p in parts[:-1]]
            name = parts[-1]
            stem, suffix = os.path.splitext(name)
            safe.append((_student_id(stem) or "unnamed") + suffix.lower())
            if safe[-1] != name:
                problems.append(f"{info.filename!r}: renamed to {safe[-1]}")
            out = target.joinpath(*safe)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(zf.read(info))
    return target, problems


def collect_submissions(
    source: Path,
    assignment: str | None,
    workdir: Path,
    name_map: dict[str, str] | None = None,
) -> tuple[list[Submission], list[str]]:
    """Find the submissions in ``source``; return them and the problems found.

    Raises:
        ValueError: ``source`` does not exist, or loose notebooks are given
            without an assignment that can be told from their names.
    """
    source = Path(source)
    problems: list[str] = []
    if not source.exists():
        raise ValueError(f"{source} does not exist")
    if source.is_file() and source.suffix.lower() == ".zip":
        source, zip_problems = _extract_zip(source, workdir / "unzipped")
        problems += zip_problems
    if (source / "submitted").is_dir():
        source = source / "submitted"
    found: list[Submission] = []
    nested = [p for p in sorted(source.glob("*/*/*.ipynb"))]
    known = set(lesson_names())
    if nested and all(p.parent.name in known for p in nested):
        for path in nested:
            if assignment and path.parent.name != assignment:
                continue
            student = path.parent.parent.name
            if _shown(student) != student:
                problems.append(
                    f"{_shown(student)}: folder name is not valid UTF-8, "
                    f"graded as {_student_id(_shown(student))}"
                )
                student = _student_id(_shown(student))
            found.append(Submission(student, path.parent.name, path, _digest(path)))
        return found, problems
    for path in sorted(source.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        lesson = assignment or next((n for n in known if n in path.name), None)
        shown = _shown(path.name)
        if lesson is None:
            problems.append(f"{shown}: cannot tell the assignment, use --assignment")
            continue
        if name_map is not None and path.name in name_map:
            student = _student_id(name_map[path.name])
        else:
            student = _student_id(path.stem.replace(lesson, ""))
        if not student:
            problems.append(f"{shown}: cannot tell the student from the file name")
            continue
        if shown != path.name:
            problems.append(
                f"{shown}: file name is not valid UTF-8, graded as {student}"
            )
        found.append(Submission(student, lesson, path, _digest(path)))
    seen: dict[tuple[str, str], Submission] = {}
    for sub in found:
        key = (sub.student, sub.assignment)
        if key in seen:
            problems.append(
                f"{_shown(sub.path.name)}: second file for {sub.student}/"
                f"{sub.assignment} (also {_shown(seen[key].path.name)}); "
                "the later one is graded"
            )
        seen[key] = sub
    return list(seen.values()), problems


# --------------------------------------------------------------------------------
# One job: runs in a worker process.


def _limit_resources(memory_mb: int) -> None:
    """Cap address space and file size; no address-space cap with an NVIDIA GPU.

    CUDA reserves far more virtual address space than it uses, so an
    address-space limit would stop every GPU kernel from starting.
    """
    if memory_mb <= 0 or os.path.exists("/dev/nvidia0"):
        memory_mb = 0
    try:
        import resource

        if memory_mb:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        big = 512 * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (big, big))
    except (ImportError, ValueError, OSError):
        pass


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def grade_job(job: dict[str, Any]) -> dict[str, Any]:
    """Grade one submission in its own job folder; write and return its Result.

    Returns what was written to its results file (timing included).
    """
    _grade_and_write(job)
    path = Path(job["out"]) / "results" / job["assignment"] / f"{job['student']}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _grade_and_write(job: dict[str, Any]) -> None:
    """Grade one job and write its result file, whatever happens."""
    import warnings

    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)
    start = time.perf_counter()
    sub = Submission(
        job["student"], job["assignment"], Path(job["path"]), job["digest"]
    )
    result = Result(sub.student, sub.assignment, "error", digest=sub.digest)
    jobdir = Path(job["jobdir"])
    try:
        release = nbformat.read(Path(job["release"]), as_version=4)
        result.max_score = float(
            sum(
                c.metadata["nbgrader"].get("points", 0)
                for c in release.cells
                if c.metadata.get("nbgrader", {}).get("grade")
            )
        )
        try:
            submitted = nbformat.read(sub.path, as_version=4)
            if not isinstance(submitted.get("cells"), list):
                raise ValueError("no cells")
        except Exception as exc:  # invalid JSON, empty file, not a notebook
            result.status = "unreadable"
            result.message = f"not a readable notebook: {type(exc).__name__}: {exc}"[
                :300
            ]
            return
        ids = {
            c.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
            for c in submitted.cells
        }
        prefixes = {i[:3] for i in ids if i}
        if prefixes and f"{sub.assignment[:2]}-" not in prefixes:
            result.status = "wrong-assignment"
            other = sorted(prefixes)[0][:2]
            result.message = (
                f"this notebook belongs to Day {other}, not {sub.assignment}"
            )
            return
        if jobdir.exists():
            shutil.rmtree(jobdir)
        shutil.copytree(job["template"], jobdir)
        target = (
            jobdir
            / "submitted"
            / sub.student
            / sub.assignment
            / f"{sub.assignment}.ipynb"
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(submitted, target)  # the grading chain reassembles it
        _limit_resources(job["memory_mb"])
        for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[variable] = str(job["threads"])
        from nbgrader.api import Gradebook
        from nbgrader.apps import NbGraderAPI
        from nbgrader.coursedir import CourseDirectory

        from autograder.scratch import _put_python_on_path, course_config

        _put_python_on_path()
        config = course_config(jobdir)
        config.GradingExecute.timeout = job["timeout"]
        config.GradingExecute.warm = job.get("warm", True)
        config.GradingExecute.confine = job.get("confine", False)
        api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        outcome = api.autograde(sub.assignment, sub.student, force=True, create=True)
        if not outcome.get("success"):
            result.message = (outcome.get("error") or outcome.get("log") or "")[-500:]
            return
        graded = jobdir / "autograded" / sub.student / sub.assignment
        executed = nbformat.read(graded / f"{sub.assignment}.ipynb", as_version=4)
        found = executed.metadata.get("course", {})
        result.flags = list(found.get("flags", []))
        result.hints = {
            gid: v["message"][:400]
            for gid, v in found.get("verdicts", {}).items()
            if not v.get("passed")
        }
        with Gradebook(api.coursedir.db_url) as gradebook:
            nb = gradebook.find_submission_notebook(
                sub.assignment, sub.assignment, sub.student
            )
            result.score, result.max_score = float(nb.score), float(nb.max_score)
            result.per_question = {
                g.name: [float(g.score), float(g.max_score)] for g in nb.grades
            }
        out = Path(job["out"]) / "feedback" / sub.assignment / f"{sub.student}.html"
        out.parent.mkdir(parents=True, exist_ok=True)
        html = _render_feedback(
            executed, api.coursedir.db_url, sub.student, sub.assignment
        )
        out.write_text(html, encoding="utf-8")
        result.feedback = str(out)
        result.status = "graded"
        return
    except Exception as exc:  # never let one submission stop the batch
        result.message = f"{type(exc).__name__}: {exc}"[:500]
        return
    finally:
        result.seconds = time.perf_counter() - start
        data = asdict(result)
        _write_json(
            Path(job["out"]) / "results" / sub.assignment / f"{sub.student}.json", data
        )
        shutil.rmtree(jobdir, ignore_errors=True)


_EXPORTER: Any = None


def _render_feedback(executed: Any, db_url: str, student: str, assignment: str) -> str:
    """nbgrader's feedback page, from an exporter built once per worker process."""
    global _EXPORTER
    if _EXPORTER is None:
        import nbgrader
        from nbconvert import HTMLExporter
        from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
        from nbgrader.preprocessors import GetGrades
        from traitlets.config import Config

        from autograder.feedback import HideHiddenTests

        formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
        config = Config()
        config.HTMLExporter.template_name = "feedback"
        config.HTMLExporter.extra_template_basedirs = [str(formgrader / "templates")]
        config.HTMLExporter.extra_template_paths = [
            str(formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css")
        ]
        config.Exporter.default_preprocessors = []
        _EXPORTER = HTMLExporter(config=config)
        for preprocessor in (GetGrades, CSSHTMLHeaderPreprocessor, HideHiddenTests):
            _EXPORTER.register_preprocessor(preprocessor(), enabled=True)
    resources = {
        "unique_key": assignment,
        "nbgrader": {
            "student": student,
            "assignment": assignment,
            "notebook": assignment,
            "db_url": db_url,
        },
    }
    html, _ = _EXPORTER.from_notebook_node(executed, resources=resources)
    return html


# --------------------------------------------------------------------------------
# The batch.


@dataclass
class ClassReport:
    """What one ``course grade`` run produced."""

    results: list[Result]
    problems: list[str]
    graded_now: int
    reused: int
    out_dir: Path
    seconds: float
    kernels: str = ""  # how the kernels were isolated (sandbox.status())

    def summary(self) -> str:
        """A few lines for the terminal."""
        bad = [r for r in self.results if r.status != "graded"]
        lines = [
            f"{len(self.results)} submission(s): {self.graded_now} graded now, "
            f"{self.reused} unchanged since the last run, {len(bad)} with problems, "
            f"in {self.seconds:.1f} s",
            f"grades: {self.out_dir / 'grades.csv'}",
            f"pass rates: {self.out_dir / 'pass_rates.csv'}",
        ]
        if self.kernels:
            lines.append(f"kernels: {self.kernels}")
        lines += [f"problem: {p}" for p in self.problems]
        lines += [f"{r.student}/{r.assignment}: {r.status}: {r.message}" for r in bad]
        flagged = [r for r in self.results if r.flags]
        lines += [
            f"{r.student}/{r.assignment} tampering: {'; '.join(r.flags)}"
            for r in flagged
        ]
        return "\n".join(lines)


class Progress:
    """A progress bar on a terminal, plain lines otherwise."""

    def __init__(self, total: int, stream: Any = None, enabled: bool = True) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.stream = stream or sys.stderr
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.start = time.perf_counter()

    def update(self, result: Result) -> None:
        """Count one finished submission and redraw."""
        self.done += 1
        self.failed += result.status != "graded"
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        left = elapsed / self.done * (self.total - self.done)
        text = (
            f"{self.done}/{self.total} graded, {self.failed} failed, "
            f"about {left:.0f} s left"
        )
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            bar = "#" * filled + "-" * (width - filled)
            self.stream.write(f"\r[{bar}] {text}")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(
                f"{text}: {result.student}/{result.assignment} "
                f"{result.status} {result.score:g}/{result.max_score:g}\n"
            )
        self.stream.flush()


def grade_class(
    source: Path,
    assignment: str | None = None,
    *,
    out_dir: Path = Path("grading"),
    jobs: int | None = None,
    force: bool = False,
    timeout: int = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    name_map: dict[str, str] | None = None,
    progress: bool = True,
    warm: bool = True,
    course_feedback: bool = False,
    sandbox: bool = True,
) -> ClassReport:
    """Grade every submission in ``source``; write results, CSVs and feedback.

    ``warm`` forks kernels from a preloaded helper (:mod:`autograder.warmkernel`);
    ``sandbox`` confines every kernel with Landlock where the OS offers it
    (:mod:`autograder.sandbox`; the report's ``kernels`` line says which).

    Raises:
        ValueError: bad source or unknown assignment (one line, for the CLI).
    """
    start = time.perf_counter()
    if assignment is not None:
        assignment = find_lesson(assignment).stem
    out_dir = Path(out_dir).resolve()
    work = out_dir / ".work"
    submissions, problems = collect_submissions(
        Path(source), assignment, work, name_map
    )
    results: dict[tuple[str, str], Result] = {}
    todo = []
    for sub in submissions:
        stored = out_dir / "results" / sub.assignment / f"{sub.student}.json"
        if stored.is_file() and not force:
            try:
                data = json.loads(stored.read_text(encoding="utf-8"))
                if data.get("digest") == sub.digest and data.get("status") == "graded":
                    results[(sub.student, sub.assignment)] = Result(**data)
                    continue
            except (ValueError, TypeError):
                pass
        todo.append(sub)
    reused = len(results)
    from autograder.scratch import ScratchCourse

    # One template course for every assignment: one gradebook to create (nbgrader
    # spends seconds on each new one), copied into each job folder.
    templates: dict[str, tuple[Path, Path]] = {}
    template_dir = work / "templates" / "course"
    if template_dir.exists():
        shutil.rmtree(template_dir)
    template = ScratchCourse(template_dir, keep=True)
    for lesson in sorted({sub.assignment for sub in todo}):
        released = template.generate(lesson)
        release = work / "templates" / f"{lesson}.release.ipynb"
        shutil.copyfile(released / f"{lesson}.ipynb", release)
        templates[lesson] = (template_dir, release)
    jobs = jobs or os.cpu_count() or 1
    from autograder import sandbox as landlock

    confine = sandbox and landlock.abi() > 0
    kernels = landlock.status() if sandbox else "not confined: --no-sandbox"
    # Kernels side by side must not each start one math thread per core: the
    # oversubscribed threads spin against each other and grading crawls.
    threads = max(1, (os.cpu_count() or 1) // min(jobs, max(len(todo), 1)))
    bar = Progress(len(todo), enabled=progress)
    payloads = [
        {
            "student": s.student,
            "assignment": s.assignment,
            "path": str(s.path),
            "digest": s.digest,
            "template": str(templates[s.assignment][0]),
            "release": str(templates[s.assignment][1]),
            "jobdir": str(work / "jobs" / s.assignment / s.student),
            "out": str(out_dir),
            "timeout": timeout,
            "memory_mb": memory_mb,
            "threads": threads,
            "warm": warm,
            "confine": confine,
        }
        for s in todo
    ]
    if payloads:
        with ProcessPoolExecutor(max_workers=min(jobs, len(payloads))) as pool:
            futures = [pool.submit(grade_job, p) for p in payloads]
            for future in as_completed(futures):
                result = Result(**future.result())
                results[(result.student, result.assignment)] = result
                bar.update(result)
    ordered = sorted(results.values(), key=lambda r: (r.assignment, r.student))
    write_reports(ordered, out_dir)
    if course_feedback:
        problems += feedback_to_course(submissions, results)
    shutil.rmtree(work / "jobs", ignore_errors=True)
    return ClassReport(
        ordered,
        problems,
        len(todo),
        reused,
        out_dir,
        time.perf_counter() - start,
        kernels,
    )


def feedback_to_course(
    submissions: list[Submission], results: dict[tuple[str, str], Result]
) -> list[str]:
    """Put feedback where ``nbgrader release_feedback`` looks for it.

    For submissions in a course's ``submitted/<student>/<assignment>/`` folder
    (what ``nbgrader collect`` makes), writes
    ``feedback/<student>/<assignment>/<notebook>.html`` next to ``submitted/``,
    with the submission's ``timestamp.txt`` and ``submission_secret.txt``.
    Returns a problem line for each submission it cannot place.
    """
    problems = []
    for sub in submissions:
        result = results.get((sub.student, sub.assignment))
        if result is None or not result.feedback:
            continue
        folder = sub.path.parent
        if folder.parent.parent.name != "submitted":
            problems.append(
                f"{sub.student}/{sub.assignment}: not in an nbgrader submitted/ "
                "folder, feedback left in the output folder only"
            )
            continue
        target = folder.parents[2] / "feedback" / folder.parent.name / folder.name
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(result.feedback, target / f"{sub.path.stem}.html")
        for name in ("timestamp.txt", "submission_secret.txt"):
            if (folder / name).is_file():
                shutil.copyfile(folder / name, target / name)
    return problems


def write_reports(results: Iterable[Result], out_dir: Path) -> None:
    """Write grades.csv (one row per submission) and pass_rates.csv (per test)."""
    results = list(results)
    questions = sorted({q for r in results for q in r.per_question})
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["student", "assignment", *questions, "total", "max", "status", "flags"]
        )
        for r in results:
            cells = [r.per_question.get(q, ["", ""])[0] for q in questions]
            writer.writerow(
                [
                    r.student,
                    r.assignment,
                    *cells,
                    r.score,
                    r.max_score,
                    r.status,
                    "; ".join(r.flags),
                ]
            )
    with open(out_dir / "pass_rates.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["assignment", "test", "passed", "graded", "pass_rate"])
        rows = []
        for q in questions:
            graded = [r for r in results if q in r.per_question]
            passed = sum(
                1 for r in graded if r.per_question[q][0] >= r.per_question[q][1]
            )
            rows.append(
                (
                    graded[0].assignment,
                    q,
                    passed,
                    len(graded),
                    round(passed / len(graded), 3),
                )
            )
        for row in sorted(rows, key=lambda row: (row[4], row[1])):
            writer.writerow(row)


__all__ = [
    "ClassReport",
    "Result",
    "Submission",
    "collect_submissions",
    "grade_class",
    "reassemble",
    "write_reports",
]
