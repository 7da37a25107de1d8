"""Benchmark: ``course grade --cluster local:N`` against ``--jobs N``, in one run.

``python -m autograder.measure.bench_cluster [--lessons 01,09] [--workers 1,2]
[--out FILE]`` writes the sample class (every lesson's samples, or those of
``--lessons``) and grades it, into a fresh output folder each time, with
``--jobs N`` and with ``--cluster local:N`` for each N (the pool first: it
makes the grader's caches the cluster then reuses). It reports, per run, the
submissions per minute and the wall time per submission over the local pool
of the same size (a task's cost: its scheduling, its transfers, a worker
pool's start); per lesson, what one worker grades in an hour (3,600 s over
the mean seconds a job took on one worker, plus that cost per task) and how
many workers grade 2,000 submissions of it in 30 minutes; and whether every
cluster run gave the same results as the pool: status and score test cell by
test cell, flags, and (apart) the hints' text.

A benchmark, not a test: its figures are this machine's. The Running a class
guide's capacity table quotes a recorded run (``docs/measurements/``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from autograder.classgrade import grade_class
from autograder.samples import all_samples, write_samples

#: A class to plan for, and the time it has.
STUDENTS, MINUTES = 2000, 30


def _key(result: Any, messages: bool = False) -> tuple | None:
    """What must be the same wherever a submission is graded: its status and
    scores, test cell by test cell (with ``messages``: the hints too)."""
    if result is None:
        return None
    if messages:
        return (result.hints,)
    return (
        result.status,
        result.score,
        result.per_question,
        result.flags,
        result.manual,
    )


def _grade(source: Path, label: str, **how: Any) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix=f"course-bench-{label.replace(':', '')}-"))
    start = time.perf_counter()
    report = grade_class(source, out_dir=out, gradebook=None, progress=False, **how)
    wall = time.perf_counter() - start
    results = {(r.student, r.lesson): r for r in report.results}
    print(
        f"{label}: {len(results)} submissions in {wall:.1f} s "
        f"({60 * len(results) / wall:.1f}/min)",
        flush=True,
    )
    return {"label": label, "wall": wall, "results": results}


def _per_lesson(run: dict[str, Any], extra: float) -> dict[str, dict[str, float]]:
    """Per lesson: mean job seconds on one worker, and capacity."""
    by: dict[str, list[float]] = {}
    for (_, lesson), result in run["results"].items():
        by.setdefault(lesson, []).append(result.seconds)
    table = {}
    for lesson, seconds in sorted(by.items()):
        mean = statistics.mean(seconds) + max(extra, 0.0)
        per_hour = 3600 / mean
        table[lesson] = {
            "submissions": len(seconds),
            "mean_job_s": round(statistics.mean(seconds), 2),
            "per_worker_hour": round(per_hour),
            "workers_for_class": math.ceil(STUDENTS / (per_hour * MINUTES / 60)),
        }
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lessons", help="e.g. 01,09 (default: every lesson)")
    parser.add_argument("--workers", default="1,2", help="sizes to compare")
    parser.add_argument("--out", help="write the figures here as JSON")
    args = parser.parse_args(argv)
    wanted = args.lessons.split(",") if args.lessons else None
    samples = all_samples(
        None
        if wanted is None
        else sorted({s.lesson for s in all_samples() if s.lesson[:2] in wanted})
    )
    source = Path(tempfile.mkdtemp(prefix="course-bench-class-"))
    write_samples(source, samples=samples)
    warm = Path(tempfile.mkdtemp(prefix="course-bench-warm-"))
    write_samples(warm, samples=samples[:1])  # imports and caches, not timed
    _grade(warm, "warm-up", jobs=1)
    runs, rows = {}, []
    for n in [int(x) for x in args.workers.split(",")]:
        pool = runs[f"jobs{n}"] = _grade(source, f"--jobs {n}", jobs=n)
        dask = runs[f"local{n}"] = _grade(
            source, f"--cluster local:{n}", cluster=f"local:{n}"
        )
        count = len(pool["results"])
        got = dask["results"]
        same = [k for k, r in pool["results"].items() if _key(r) == _key(got.get(k))]
        hints = [
            k
            for k, r in pool["results"].items()
            if _key(r, True) == _key(got.get(k), True)
        ]
        for k in sorted(set(pool["results"]) - set(hints)):
            print(
                f"  hints differ: {k[0]}/{k[1]}: {pool['results'][k].hints} "
                f"!= {got[k].hints if k in got else None}"[:600]
            )
        per_task = (dask["wall"] - pool["wall"]) * n / max(count, 1)
        rows.append(
            {
                "workers": n,
                "submissions": count,
                "jobs_per_min": round(60 * count / pool["wall"], 2),
                "cluster_per_min": round(60 * count / dask["wall"], 2),
                "cluster_over_jobs": round(pool["wall"] / dask["wall"], 3),
                "extra_s_per_task": round(per_task, 2),
                "same_scores_per_cell": f"{len(same)}/{count}",
                "same_hints": f"{len(hints)}/{count}",
            }
        )
    for row in rows:
        print(
            f"{row['workers']} worker(s): --jobs {row['jobs_per_min']}/min, "
            f"--cluster {row['cluster_per_min']}/min (x{row['cluster_over_jobs']}),"
            f" {row['extra_s_per_task']:+.2f} s a task; the same status and "
            f"score per test cell: {row['same_scores_per_cell']}, the same "
            f"hints: {row['same_hints']}"
        )
    one = runs["local1"] if "local1" in runs else next(iter(runs.values()))
    extra = next((r["extra_s_per_task"] for r in rows if r["workers"] == 1), 0.0)
    lessons = _per_lesson(one, extra)
    print(f"\nper worker (one task slot), {STUDENTS} submissions in {MINUTES} min:")
    for lesson, row in lessons.items():
        print(
            f"  {lesson}: {row['mean_job_s']:.1f} s a job, "
            f"{row['per_worker_hour']}/hour, {row['workers_for_class']} workers"
        )
    figures = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "runs": rows,
        "lessons": lessons,
        "class": {"students": STUDENTS, "minutes": MINUTES},
    }
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(figures, indent=1) + "\n")
        print(f"figures: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
