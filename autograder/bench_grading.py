"""The grading benchmark (``python -m autograder.bench_grading``): moved to
:mod:`autograder.measure.bench_grading`; this name stays for the configs and
commands that name it (``import autograder.bench_grading`` gives that module itself)."""

import importlib
import sys

if __name__ == "__main__":
    raise SystemExit(importlib.import_module("autograder.measure.bench_grading").main())
else:
    sys.modules[__name__] = importlib.import_module("autograder.measure.bench_grading")
