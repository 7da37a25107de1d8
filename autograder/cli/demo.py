"""``course demo``: the course's pipeline on bundled defaults, in four steps.

Doctor, release, one lesson run as a script, then ``course grade`` on one
sample of each kind (the reference, the blank student edition, a mistake, an
attack) for two lessons, each compared with the score it must get. ``make
demo`` runs it in about a minute after install; ``make demo-class``
(``--all``) grades the whole sample class instead (69 submissions, a few
minutes on 2 cores).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

#: The two lessons the short demo grades: each has a sample of every kind.
LESSONS = ("01_devices", "03_sync_trap")
#: One sample of each kind, in this order; an attack is an adversarial sample,
#: or a tampered one where a lesson has none.
KINDS = ("reference", "blank", "mistake", ("adversarial", "tampered"))


def one_of_each_kind(samples: list) -> list:
    """The first sample of each kind in :data:`KINDS`, per lesson."""
    chosen = []
    for lesson in dict.fromkeys(s.lesson for s in samples):
        mine = [s for s in samples if s.lesson == lesson]
        for kind in KINDS:
            kinds = (kind,) if isinstance(kind, str) else kind
            found = next((s for k in kinds for s in mine if s.kind == k), None)
            if found is not None:
                chosen.append(found)
    return chosen


def demo(
    lesson: str = "01_devices", skip_samples: bool = False, everything: bool = False
) -> int:
    """Run the steps; return 0 if everything scored as expected."""
    from autograder.lessons import find_lesson
    from autograder.lessons.script import run_script
    from autograder.publish.release import release
    from course.doctor import doctor_text

    lesson = find_lesson(lesson).stem
    print("== 1/4 environment (course doctor)")
    print(doctor_text())
    print("\n== 2/4 release: solutions/ -> notebooks/ (student edition)")
    start = time.perf_counter()
    release()
    print(f"released in {time.perf_counter() - start:.1f} s")
    print(f"\n== 3/4 run {lesson}'s solution top to bottom, as a script")
    run = run_script(lesson)
    print(run.output.rstrip()[-1500:] if not run.ok else f"ok in {run.seconds:.1f} s")
    if not run.ok:
        print(f"FAILED: {lesson} did not run to the end.")
        return 1
    if skip_samples:
        return 0
    return grade_samples(everything)


def grade_samples(everything: bool = False) -> int:
    """Step 4: grade samples with ``course grade``; 0 if each scored as expected."""
    from autograder.classgrade import grade_class
    from autograder.samples import all_samples, compare, write_samples

    samples = all_samples() if everything else one_of_each_kind(all_samples(LESSONS))
    lessons = sorted({s.lesson for s in samples})
    what = "every sample" if everything else "one sample of each kind"
    print(
        f"\n== 4/4 `course grade`: {what}, {len(samples)} submissions of "
        f"{len(lessons)} lessons (references are cached after one run)"
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        write_samples(Path(tmp) / "samples", samples=samples)
        report = grade_class(Path(tmp) / "samples", out_dir=Path(tmp) / "grading")
        rates = (Path(tmp) / "grading" / "pass_rates.csv").read_text().splitlines()
    print(f"graded in {time.perf_counter() - start:.1f} s\n")
    print(
        f"{'student':<26} {'lesson':<24} {'kind':<12} {'score':>6} {'must':>5}  status"
    )
    by_key = {(r.student, r.lesson): r for r in report.results}
    for s in samples:
        r = by_key[(s.name, s.lesson)]
        print(
            f"{s.name:<26} {s.lesson:<24} {s.kind:<12} {r.score:>6g} {s.score:>5g}"
            f"  {r.status}{' (tampering flagged)' if r.flags else ''}"
        )
    print("\nhardest tests (pass rate across these submissions):")
    for line in rates[1:6]:
        print("  " + line)
    print("\n" + report.summary().splitlines()[0])
    print(f"kernels: {report.kernels}")
    problems = compare(samples, report.results)
    for problem in problems:
        print("UNEXPECTED: " + problem)
    if problems:
        return 1
    print(f"All {len(samples)} submissions scored exactly as expected.")
    if not everything:
        print(
            "The whole sample class (every lesson, every kind): make demo-class "
            "(or python -m autograder demo --all)."
        )
    return 0
