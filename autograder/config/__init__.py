"""The grader's settings: ``settings`` (the nbgrader configs each run loads,
the grader's cache). The course's nbgrader configuration itself is
``autograder/nbgrader_config.py``; course folders are built by
``autograder.lessons.scratch``."""

from pathlib import Path

#: ``course grade``'s defaults, in one place (the CLI and the Python API); the
#: time per cell is the course config's ``c.GradingExecute.timeout``.
DEFAULT_MEMORY_MB = 4096  # address space per grading process
DEFAULT_OUT = Path("grading")  # the batch's output folder
