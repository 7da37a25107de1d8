"""Helpers shared by every lesson of the GPU acceleration course.

Import what you need explicitly, for example::

    from course.devices import pick_device
    from course.backend import get_xp, host_copy
    from course.timing import benchmark

Importing :mod:`course` itself is cheap: torch and CuPy are only imported by the
modules that need them.
"""

__version__ = "0.1.0"

FORCE_CPU_ENV = "COURSE_FORCE_CPU"
"""Environment variable: set it to ``1`` to make every helper choose the CPU."""
