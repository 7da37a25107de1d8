"""nbgrader settings for a student's JupyterLab (``make lab``).

The assignment list fetches and submits through the exchange folder named by
``COURSE_EXCHANGE`` (``make lab`` sets it; default ``.exchange/`` in the course),
or on a hub through the ngshare service at ``COURSE_NGSHARE_URL``
(``ngshare-exchange``: each request carries the user's own hub token).
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets

# autograder/jupyter/<role>/nbgrader_config.py -> the course root
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
c.CourseDirectory.course_id = "gpu-course"
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
