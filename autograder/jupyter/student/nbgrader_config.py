"""nbgrader settings for a student's JupyterLab (``make lab``).

The assignment list fetches and submits through the exchange folder named by
``COURSE_EXCHANGE`` (``make lab`` sets it; default ``.exchange/`` in the course).
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets

# autograder/jupyter/<role>/nbgrader_config.py -> the course root
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
c.CourseDirectory.course_id = "gpu-course"
c.Exchange.root = os.environ.get("COURSE_EXCHANGE", os.path.join(_ROOT, ".exchange"))
