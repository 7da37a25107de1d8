"""``python -m course``: what the student library alone can do (``doctor``).

Every other command (release, grade, check, bench, gpu-check, demo) belongs to
the instructor tools: the ``course`` command, or ``python -m autograder``.
"""

from __future__ import annotations

import sys

from course.doctor import doctor_text

USAGE = "usage: python -m course [doctor]"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in ([], ["doctor"]):
        print(doctor_text())
        return 0
    if args[0] in ("-h", "--help"):
        print(USAGE)
        print("  doctor   what this machine has: Python, torch, CUDA, CuPy, the device")
        print("           and array backend the lessons will use")
        return 0
    print(
        f"python -m course knows only `doctor`; `{args[0]}` is an instructor "
        "command.\nIf the full course is installed (pip install -e . in the "
        f"repository), run `course {' '.join(args)}` or "
        f"`python -m autograder {' '.join(args)}`.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
