"""Helpers shared by every lesson of the GPU acceleration course.

Import what you need explicitly, for example::

    from course.devices import pick_device
    from course.backend import get_xp, host_copy
    from course.timing import benchmark

Importing :mod:`course` itself is cheap: torch and CuPy are only imported by the
modules that need them.
"""

__version__ = "0.1.0"

import os as _os

# PyTorch's profiler (Days 03 and 10) otherwise writes two log lines to stderr at
# every start and stop, which nbgrader would read as a failed cell. Set before
# the profiler first starts; a value already in the environment wins.
_os.environ.setdefault("KINETO_LOG_LEVEL", "99")

FORCE_CPU_ENV = "COURSE_FORCE_CPU"
"""Environment variable: set it to ``1`` to make every helper choose the CPU."""
