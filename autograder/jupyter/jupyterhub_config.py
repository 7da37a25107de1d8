"""JupyterHub for running the course on one shared server, with nbgrader.

nbgrader's multi-course layout: the course runs as a JupyterHub *service* (a
Jupyter server owned by the course's grader account, where formgrader lives);
instructors reach it through the ``formgrade-gpu-course`` group; students, in
the ``nbgrader-gpu-course`` group, see the course in their assignment list and
fetch and submit through a shared exchange folder.

Copy this file to the hub's configuration folder and change the lines marked
CHANGE. Start with ``jupyterhub -f jupyterhub_config.py`` (needs JupyterHub,
``jupyterhub-idle-culler`` and ``configurable-http-proxy`` from npm). Every
user's environment needs the student library (``pip install ./student``) so
notebooks import ``course``; the course service needs the full course.

Idle servers are stopped by ``jupyterhub-idle-culler`` (a hub service, at the
end), and every user's server gets a memory and CPU limit, which only spawners
that can enforce them do: ``SystemdSpawner`` (cgroups), ``DockerSpawner`` and
``KubeSpawner``; the default local process spawner ignores them. For a
Kubernetes hub with GPU profiles see ``z2jh-values.yaml`` beside this file.
"""

import os
import sys

c = get_config()  # noqa: F821 - provided by traitlets

COURSE_ID = "gpu-course"
COURSE_ROOT = os.environ.get("COURSE_ROOT", "/srv/gpu-course")  # CHANGE
EXCHANGE = os.environ.get("COURSE_EXCHANGE", "/srv/nbgrader/exchange")  # CHANGE
GRADER = f"grader-{COURSE_ID}"
INSTRUCTORS = ["instructor"]  # CHANGE
STUDENTS = ["alice", "bob"]  # CHANGE (or let an LTI/OAuth authenticator add them)
SERVICE_PORT = int(os.environ.get("COURSE_SERVICE_PORT", "9999"))

c.JupyterHub.bind_url = os.environ.get("HUB_BIND_URL", "http://127.0.0.1:8000")
# CHANGE: a real authenticator (PAM, OAuth, LTI). The dummy one is for trials.
c.JupyterHub.authenticator_class = os.environ.get("HUB_AUTHENTICATOR", "pam")
c.Authenticator.allowed_users = set(INSTRUCTORS + STUDENTS + [GRADER])
c.Authenticator.admin_users = set(INSTRUCTORS)

c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    "COURSE_EXCHANGE": EXCHANGE,
    # the student JupyterLab settings of `make lab`: assignment list, Validate
    "JUPYTER_CONFIG_DIR": os.path.join(COURSE_ROOT, "autograder/jupyter/student"),
}

c.JupyterHub.load_groups = {
    "instructors": {"users": INSTRUCTORS},
    f"formgrade-{COURSE_ID}": {"users": INSTRUCTORS + [GRADER]},
    f"nbgrader-{COURSE_ID}": {"users": STUDENTS},
}
c.JupyterHub.load_roles = [
    {
        "name": "instructor",
        "groups": ["instructors"],
        "scopes": ["admin:users", "admin:servers"],
    },
    {
        "name": f"formgrade-{COURSE_ID}",
        "groups": [f"formgrade-{COURSE_ID}"],
        "scopes": [f"access:services!service={COURSE_ID}"],
    },
    {
        "name": f"nbgrader-{COURSE_ID}",
        "groups": [f"nbgrader-{COURSE_ID}"],
        "scopes": ["list:services", f"read:services!service={COURSE_ID}"],
    },
    {"name": "server", "scopes": ["inherit"]},
]
c.JupyterHub.services = [
    {
        "name": COURSE_ID,
        "url": f"http://127.0.0.1:{SERVICE_PORT}",
        "command": [
            "jupyterhub-singleuser",
            f"--ServerApp.root_dir={COURSE_ROOT}",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={SERVICE_PORT}",
        ],
        "user": GRADER,
        "cwd": COURSE_ROOT,
        "environment": {
            "COURSE_EXCHANGE": EXCHANGE,
            "COURSE_ROOT": COURSE_ROOT,
            # formgrader and the create-assignment toolbar (`make instructor`)
            "JUPYTER_CONFIG_DIR": os.path.join(
                COURSE_ROOT, "autograder/jupyter/instructor"
            ),
            "JUPYTERHUB_DEFAULT_URL": "/lab",
        },
    }
]

# Stop servers idle for an hour, so GPUs and memory go back to the pool.
IDLE_TIMEOUT = int(os.environ.get("COURSE_IDLE_TIMEOUT", "3600"))  # CHANGE
c.JupyterHub.services.append(
    {
        "name": "idle-culler",
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={IDLE_TIMEOUT}",
        ],
    }
)
c.JupyterHub.load_roles.append(
    {
        "name": "idle-culler",
        "services": ["idle-culler"],
        "scopes": [
            "list:users",
            "read:users:activity",
            "read:servers",
            "delete:servers",
        ],
    }
)

# Per-user limits (CHANGE to fit the machine). Enforced by SystemdSpawner,
# DockerSpawner and KubeSpawner; the default local process spawner ignores them.
c.Spawner.mem_limit = os.environ.get("COURSE_MEM_LIMIT", "8G")
c.Spawner.cpu_limit = float(os.environ.get("COURSE_CPU_LIMIT", "2"))
