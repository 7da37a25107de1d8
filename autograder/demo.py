"""``course demo``: the whole course on bundled defaults, in five steps.

Doctor, release, one lesson run as a script, its reference and blank notebooks
graded by nbgrader, then every sample submission graded with ``course grade``
and compared with the score it must get. ``make demo`` runs it.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path


def demo(lesson: str = "01_devices", skip_samples: bool = False) -> int:
    """Run the five steps; return 0 if everything scored as expected."""
    from autograder.classgrade import grade_class
    from autograder.execute import run_script
    from autograder.grading import grade_notebooks
    from autograder.lessons import (
        REPO_ROOT,
        find_lesson,
        source_to_notebook,
        write_notebook,
    )
    from autograder.release import release
    from autograder.samples import compare, expected_score, write_samples
    from course.doctor import doctor_text

    lesson = find_lesson(lesson).stem
    print("== 1/5 environment (course doctor)")
    print(doctor_text())
    print("\n== 2/5 release: solutions/ -> notebooks/ (student edition)")
    start = time.perf_counter()
    release()
    print(f"released in {time.perf_counter() - start:.1f} s")
    print(f"\n== 3/5 run {lesson}'s solution top to bottom, as a script")
    run = run_script(lesson)
    print(run.output.rstrip()[-1500:] if not run.ok else f"ok in {run.seconds:.1f} s")
    if not run.ok:
        print(f"FAILED: {lesson} did not run to the end.")
        return 1
    print(f"\n== 4/5 grade two submissions of {lesson} with nbgrader autograde")
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "reference.ipynb"
        write_notebook(source_to_notebook(find_lesson(lesson)), reference)
        blank = REPO_ROOT / "notebooks" / lesson / f"{lesson}.ipynb"
        start = time.perf_counter()
        grades = grade_notebooks(lesson, {"reference": reference, "blank": blank})
    print(f"graded in {time.perf_counter() - start:.1f} s")
    print(f"{'student':<16} {'lesson':<22} score")
    for grade in grades:
        print(grade)
    if [g.score for g in grades] != [grades[0].max_score, 0.0]:
        print("UNEXPECTED: the reference must get full marks and the blank zero.")
        return 1
    if skip_samples:
        return 0
    print("\n== 5/5 grade every sample submission with `course grade` (parallel)")
    with tempfile.TemporaryDirectory() as tmp:
        samples = write_samples(Path(tmp) / "samples")
        report = grade_class(Path(tmp) / "samples", out_dir=Path(tmp) / "grading")
        rates = (Path(tmp) / "grading" / "pass_rates.csv").read_text().splitlines()
    print(f"{'student':<26} {'lesson':<24} {'score':>7} {'expected':>8}  status")
    by_key = {(r.student, r.lesson): r for r in report.results}
    for s in samples:
        r = by_key[(s.name, s.lesson)]
        print(
            f"{s.name:<26} {s.lesson:<24} {r.score:>7g} {expected_score(s):>8g}"
            f"  {r.status}{' (tampering flagged)' if r.flags else ''}"
        )
    print("\nhardest tests (pass rate across the samples):")
    for line in rates[1:6]:
        print("  " + line)
    print("\n" + report.summary().splitlines()[0])
    print(f"kernels: {report.kernels}")
    problems = compare(samples, report.results)
    for problem in problems:
        print("UNEXPECTED: " + problem)
    if problems:
        return 1
    print(f"All {len(samples)} samples scored exactly as expected.")
    return 0
