"""Late penalties (``c.AssignLatePenalties.plugin_class``): moved to
:mod:`autograder.classgrade.late`; this name stays for the configs and
commands that name it (``import autograder.late`` gives that module itself)."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("autograder.classgrade.late")
