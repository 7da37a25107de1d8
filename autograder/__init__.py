"""Release and grading for the course, built on nbgrader.

* :mod:`autograder.lessons` - find lessons, convert jupytext sources to notebooks.
* :mod:`autograder.scratch` - throwaway nbgrader course folders.
* :mod:`autograder.release` - write the student edition to ``notebooks/``.
* :mod:`autograder.grading` - grade submissions with nbgrader's autograde.
"""
