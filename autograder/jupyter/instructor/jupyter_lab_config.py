"""Keep JupyterLab's per-user state out of the course folder, as for students.

The rules live in ../student/jupyter_lab_config.py; both editions share them.
"""

import os

load_subconfig(  # noqa: F821 - provided by traitlets
    "jupyter_lab_config.py",
    path=os.path.join(os.path.dirname(__file__), os.pardir, "student"),
)
