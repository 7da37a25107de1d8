"""The whole course on a GPU: every lesson as a script, then the full benchmark.

``python -m autograder gpu-check --out DIR`` (``make gpu-check``) is made for a GPU
machine that has torch and CuPy but no Jupyter: each ``solutions/NN/NN.py`` runs
top to bottom as a plain script (its visible and hidden tests included, so a
lesson "passes" when every check in it holds on this hardware), then
``course bench`` runs in full. Everything lands under DIR:

- ``gpu-check.json``: hardware, versions, date, each lesson's outcome and time;
- ``doctor.txt``: what ``course doctor`` saw;
- ``lessons/NN_topic.log``: each lesson's output; ``figures/NN_topic/``: its plots;
- ``results/NN_topic.jsonl``: what each hidden test sent, in order, to compare
  with the CPU reference (``course gpu-compare DIR``);
- ``bench/bench--<hardware>--<time>.json`` and its plots.

To show the GPU figures to readers without a GPU, commit the bench file with
``course bench --record DIR/bench/<file>.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from autograder.lessons import lesson_names
from autograder.lessons.script import run_script
from course.results import LOG_ENV


def missing_packages(lesson: str) -> list[str]:
    """The extra packages ``lesson`` needs (:data:`autograder.lessons.colab.
    LESSON_PACKAGES`) that this Python cannot import."""
    import importlib.util

    from autograder.lessons.colab import lesson_packages

    return [
        package
        for package in lesson_packages(lesson)
        if importlib.util.find_spec(package.replace("-", "_")) is None
    ]


def gpu_check(
    out: Path,
    *,
    quick: bool = False,
    lessons: list[str] | None = None,
    experiments: list[str] | None = None,
    only: list[str] | None = None,
) -> int:
    """Run the lessons and the bench; return 0 if every lesson passed, else 1.

    ``only`` (Day numbers, e.g. ``["09", "10"]``): just those lessons and the
    extras that belong to them, no bench (a few minutes)."""
    from autograder.lessons.conventions import LessonId
    from autograder.measure.gpu_kernels import EXTRAS as KERNEL_EXTRAS

    if only:
        lessons = [n for n in lesson_names() if LessonId(n).digits in only]
        if not lessons:
            raise ValueError(f"ONLY={','.join(only)} names no lesson")
    from autograder.measure import bench
    from course.doctor import doctor_text

    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    doctor = doctor_text()
    (out / "doctor.txt").write_text(doctor + "\n", encoding="utf-8")
    print(doctor, flush=True)
    # the newest Days first: they are the ones no earlier run has checked
    names = sorted(lessons or lesson_names(), key=lambda n: (n < "09", n))
    rows = {}
    (out / "lessons").mkdir(exist_ok=True)
    for name in names:
        missing = missing_packages(name)
        if missing:
            rows[name] = {"passed": None, "skipped": f"not installed: {missing}"}
            print(
                f"{name:<24} skipped: {', '.join(missing)} not installed here "
                "(pip install it to run this lesson)",
                flush=True,
            )
            continue
        log = out / "results" / f"{name}.jsonl"
        log.parent.mkdir(exist_ok=True)
        log.unlink(missing_ok=True)
        result = run_script(
            name,
            timeout=900,
            env={"COURSE_FIGURES": str(out / "figures" / name), LOG_ENV: str(log)},
        )
        (out / "lessons" / f"{result.lesson}.log").write_text(
            result.output, encoding="utf-8"
        )
        rows[result.lesson] = {
            "passed": result.ok,
            "seconds": round(result.seconds, 1),
            "first_lines": result.output.splitlines()[:3],
            "error_tail": "" if result.ok else result.output[-3000:],
        }
        verdict = "passed" if result.ok else "FAILED"
        print(
            f"{result.lesson:<24} {verdict:>6} in {result.seconds:6.1f} s", flush=True
        )
    report = {
        "hardware": None,
        "date": None,
        "lessons": rows,
        "extras": "extras.json",
        "bench": None,
        "seconds": None,
    }

    def write_report() -> None:
        report["seconds"] = round(time.perf_counter() - start, 1)
        (out / "gpu-check.json").write_text(
            json.dumps(report, indent=1) + "\n", encoding="utf-8"
        )

    write_report()
    from autograder.measure.gpu_extras import run_extras

    extras = run_extras(
        not quick,
        log=lambda line: print(line, flush=True),
        names=[*KERNEL_EXTRAS, "confined_gpu"] if only else None,
    )
    (out / "extras.json").write_text(
        json.dumps(extras, indent=1) + "\n", encoding="utf-8"
    )
    write_report()
    if only:
        return _finish(rows, report.get("hardware") or "this machine", out)

    def checkpoint(partial: dict) -> None:
        bench.save(partial, out / "bench", name="partial")

    data = bench.run_all(
        "quick" if quick else "gpu-check",
        experiments,
        log=lambda line: print(line, flush=True),
        checkpoint=checkpoint,
    )
    path = bench.save(data, out / "bench")
    (out / "bench" / "partial.json").unlink(missing_ok=True)
    report.update(
        hardware=data["hardware"],
        date=data["environment"]["date"],
        environment=data["environment"],
        bench=str(path.relative_to(out)),
    )
    write_report()
    try:
        bench.plot(data, out / "bench" / path.stem)
    except Exception as exc:  # noqa: BLE001 - the numbers matter more than plots
        print(f"bench plots failed: {exc}", flush=True)
    try:
        from autograder.measure.model_check import model_check

        model_check(out, say=lambda line: print(line, flush=True))
    except Exception as exc:  # noqa: BLE001 - the measurements are kept
        print(f"model check failed: {type(exc).__name__}: {exc}", flush=True)
    print()
    print(bench.summary(data))
    return _finish(rows, data["hardware"], out)


def _finish(rows: dict[str, Any], hardware: str, out: Path) -> int:
    """Print the lessons' tally; 0 if every lesson that ran passed."""
    ran = [row for row in rows.values() if row["passed"] is not None]
    passed = sum(row["passed"] for row in ran)
    skipped = len(rows) - len(ran)
    print(
        f"\n{passed}/{len(ran)} lessons passed on {hardware}"
        + (f" ({skipped} skipped: a package was missing)" if skipped else "")
        + f"; report: {out / 'gpu-check.json'}"
    )
    return 0 if passed == len(ran) else 1
