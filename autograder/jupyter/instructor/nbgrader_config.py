"""nbgrader settings for the instructor's JupyterLab (``make instructor``).

The course's own ``autograder/nbgrader_config.py`` (course root, folders, stubs,
feedback), plus the exchange folder named by ``COURSE_EXCHANGE``.
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets

# autograder/jupyter/<role>/nbgrader_config.py -> the course root
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
load_subconfig(os.path.join(_ROOT, "autograder", "nbgrader_config.py"))  # noqa: F821
if os.environ.get("COURSE_ROOT"):  # another copy of the course (tests, a server)
    c.CourseDirectory.root = os.environ["COURSE_ROOT"]
if os.environ.get("COURSE_NGSHARE_URL"):  # on a hub: ngshare, each user's own files
    import pwd

    # ngshare-exchange reads $USER when imported (a service may not have it)
    os.environ.setdefault("USER", pwd.getpwuid(os.getuid()).pw_name)
    from ngshare_exchange import configureExchange

    configureExchange(c, os.environ["COURSE_NGSHARE_URL"])
else:  # one machine: a shared exchange folder
    c.Exchange.root = os.environ.get(
        "COURSE_EXCHANGE", os.path.join(_ROOT, ".exchange")
    )
