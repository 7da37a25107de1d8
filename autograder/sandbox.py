"""The confined kernel (``python -m autograder.sandbox``): moved to
:mod:`autograder.grading.kernel.sandbox`; this name stays for the configs and
commands that name it (``import autograder.sandbox`` gives that module itself)."""

import importlib
import sys

if __name__ == "__main__":
    importlib.import_module("autograder.grading.kernel.sandbox").main()
else:
    sys.modules[__name__] = importlib.import_module("autograder.grading.kernel.sandbox")
