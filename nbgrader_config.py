"""nbgrader reads this file when it runs at the course root (``nbgrader collect``,
``nbgrader release_assignment``...). The course's settings live in
``autograder/nbgrader_config.py``; this only loads them.
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets
load_subconfig(  # noqa: F821 - provided by traitlets
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "autograder", "nbgrader_config.py"
    )
)
