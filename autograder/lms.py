"""The LMS exporters (``nbgrader export --exporter``): moved to
:mod:`autograder.classgrade.lms`; this name stays for the configs and
commands that name it (``import autograder.lms`` gives that module itself)."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("autograder.classgrade.lms")
