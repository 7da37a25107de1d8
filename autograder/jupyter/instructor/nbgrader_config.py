"""nbgrader settings for the instructor's JupyterLab (``make instructor``).

The course's own ``autograder/nbgrader_config.py`` (course root, folders, stubs,
feedback), plus the exchange the students use: their settings'
(``../student/nbgrader_config.py``: a folder on one machine, ngshare on a hub).
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets

# autograder/jupyter/<role>/nbgrader_config.py -> the course root
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
load_subconfig(os.path.join(_ROOT, "autograder", "nbgrader_config.py"))  # noqa: F821
load_subconfig(  # noqa: F821 - the exchange, as the students have it
    os.path.join(_ROOT, "autograder", "jupyter", "student", "nbgrader_config.py")
)
if os.environ.get("COURSE_ROOT"):  # another copy of the course (tests, a server)
    c.CourseDirectory.root = os.environ["COURSE_ROOT"]
