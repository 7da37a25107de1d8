"""Keep JupyterLab's per-user state out of the course folder.

JupyterLab stores workspaces and user settings under its configuration folder,
which ``make lab`` / ``make instructor`` point at this folder; put them in the
user's home instead (or where JUPYTERLAB_*_DIR says).
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets

c.LabApp.user_settings_dir = os.environ.get(
    "JUPYTERLAB_SETTINGS_DIR", os.path.expanduser("~/.jupyter/lab/user-settings")
)
c.LabApp.workspaces_dir = os.environ.get(
    "JUPYTERLAB_WORKSPACES_DIR", os.path.expanduser("~/.jupyter/lab/workspaces")
)
