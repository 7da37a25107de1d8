"""The grader's settings and folders: ``scratch`` (the nbgrader configs each run
loads, the grader's cache, generated course folders). The course's nbgrader
configuration itself is ``autograder/nbgrader_config.py``."""
