"""Read the course's environment switches in one place."""

from __future__ import annotations

import os

from course import FORCE_CPU_ENV

_TRUE = {"1", "true", "yes", "on"}


def force_cpu() -> bool:
    """Return True when ``COURSE_FORCE_CPU`` asks every helper to use the CPU.

    Read at call time, so a notebook can set ``os.environ`` and see the effect
    without restarting the kernel.
    """
    return os.environ.get(FORCE_CPU_ENV, "").strip().lower() in _TRUE
