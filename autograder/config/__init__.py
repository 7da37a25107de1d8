"""The grader's settings and folders: ``scratch`` (the nbgrader configs each run
loads, the grader's cache, generated course folders). The course's nbgrader
configuration itself is ``autograder/nbgrader_config.py``."""

from pathlib import Path

#: ``course grade``'s defaults, in one place (the CLI and the Python API).
DEFAULT_TIMEOUT = 60  # seconds per cell
DEFAULT_MEMORY_MB = 4096  # address space per grading process
DEFAULT_OUT = Path("grading")  # the batch's output folder
