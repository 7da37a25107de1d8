"""Keep JupyterLab's per-user state out of the course folder, as for students
(the rules live in ../student/jupyter_lab_config.py; both editions share them);
on a hub, open formgrader in a tab of its own.
"""

import os

load_subconfig(  # noqa: F821 - provided by traitlets
    "jupyter_lab_config.py",
    path=os.path.join(os.path.dirname(__file__), os.pardir, "student"),
)


def _formgrader_in_its_own_tab(prefix: str) -> str:
    """On a hub (the course service), JupyterHub 4.1 and later forbid framing
    its pages, so nbgrader's framed Formgrader panel stays blank (nbgrader
    #1870, #1947): leave that panel out, and give JupyterLab a Course menu
    whose Formgrader opens it in a browser tab of its own. Returns the folder
    of these settings (JupyterLab's app settings: page config and overrides)."""
    import json

    folder = os.path.expanduser("~/.jupyter/lab/hub-app-settings")
    os.makedirs(folder, exist_ok=True)
    page = {"disabledExtensions": {"@jupyter/nbgrader:formgrader": True}}
    item = {
        "command": "help:open",
        "args": {
            "url": f"{prefix}formgrader",
            "text": "Formgrader",
            "newBrowserTab": True,
        },
        "rank": 0,
    }
    menu = {"id": "jp-mainmenu-course", "label": "Course", "rank": 90, "items": [item]}
    overrides = {"@jupyterlab/mainmenu-extension:plugin": {"menus": [menu]}}
    for name, data in (("page_config.json", page), ("overrides.json", overrides)):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
    return folder


if os.environ.get("JUPYTERHUB_SERVICE_PREFIX"):  # the course service on a hub
    c = get_config()  # noqa: F821 - provided by traitlets
    c.LabApp.app_settings_dir = _formgrader_in_its_own_tab(
        os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    )
