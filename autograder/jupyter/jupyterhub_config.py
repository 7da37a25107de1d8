"""JupyterHub for running the course on one shared server, with nbgrader.

nbgrader's multi-course layout: the course runs as a JupyterHub *service* (a
Jupyter server owned by the course's grader account, where formgrader lives);
instructors reach it through the ``formgrade-gpu-course`` group; students, in
the ``nbgrader-gpu-course`` group, see the course in their assignment list.

Assignments, submissions and feedback travel through **ngshare**, a hub
service (nbgrader's exchange for multi-user hubs): each request carries the
caller's own hub token, so a student lists, fetches and submits only their
own files, and only the course's instructors (here the course service) see
everyone's. Its files live in ``COURSE_NGSHARE_STATE``, which only the hub's
account can read. The course service's home page is formgrader, so the hub's
Services menu opens it in a browser tab of its own: JupyterHub 4.1 and later
forbid framing a hub page, which leaves nbgrader's framed Formgrader panel
blank.

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
INSTRUCTORS = os.environ.get("COURSE_INSTRUCTORS", "instructor").split(",")  # CHANGE
# CHANGE (or let an LTI/OAuth authenticator add them)
STUDENTS = os.environ.get("COURSE_STUDENTS", "alice,bob").split(",")
SERVICE_PORT = int(os.environ.get("COURSE_SERVICE_PORT", "9999"))
NGSHARE_PORT = int(os.environ.get("COURSE_NGSHARE_PORT", "10101"))
NGSHARE_STATE = os.environ.get("COURSE_NGSHARE_STATE", "/srv/ngshare")  # CHANGE
NGSHARE_URL = f"http://127.0.0.1:{NGSHARE_PORT}/services/ngshare"
# ngshare's own environment (`make ngshare`): it needs SQLAlchemy 1.x
NGSHARE_PYTHON = os.environ.get(
    "COURSE_NGSHARE_PYTHON", os.path.join(COURSE_ROOT, ".ngshare", "bin", "python")
)
# where the hub copies the students' Jupyter settings, for every account to read
STUDENT_SETTINGS = os.environ.get(
    "COURSE_STUDENT_SETTINGS", "/srv/gpu-course-settings/student"
)  # CHANGE


def _course_root_is_private(root: str) -> None:
    """The course root holds the solutions, the submissions and the gradebook:
    the grader's account alone may read it."""
    if os.path.isdir(root) and os.stat(root).st_mode & 0o077:
        sys.exit(
            f"{root} (COURSE_ROOT) can be read by other accounts, students "
            f"included: it holds the solutions and every submission. Run "
            f"`chown -R {GRADER} {root} && chmod 700 {root}`, then start the hub."
        )


def _copy_student_settings(root: str, to: str) -> None:
    """The students' settings (``autograder/jupyter/student``), copied from
    the private course root to ``to``, which every account reads."""
    import shutil

    source = os.path.join(root, "autograder", "jupyter", "student")
    if not os.path.isdir(source):
        sys.exit(f"{source} is missing: is COURSE_ROOT ({root}) the course?")
    os.makedirs(os.path.dirname(to), mode=0o755, exist_ok=True)
    shutil.copytree(source, to, dirs_exist_ok=True)
    for folder, _, files in os.walk(to):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


def _private_home(spawner) -> None:
    """A user's home is theirs alone (Debian's useradd makes it 0755)."""
    import pwd

    try:
        home = pwd.getpwnam(spawner.user.name).pw_dir
    except KeyError:  # not a system account (a trial spawner)
        return
    if os.path.isdir(home) and os.stat(home).st_uid != os.geteuid():
        os.chmod(home, 0o700)


def _ngshare_runs(python: str) -> None:
    """ngshare's Python has ngshare, and SQLAlchemy 1.x under it."""
    import subprocess

    probe = "import ngshare, sqlalchemy; assert sqlalchemy.__version__ < '2'"
    if not os.path.isfile(python) or subprocess.run([python, "-c", probe]).returncode:
        sys.exit(
            f"{python} (COURSE_NGSHARE_PYTHON) cannot run ngshare with SQLAlchemy "
            "1.x, which it needs: run `make ngshare` in the course root, or point "
            "COURSE_NGSHARE_PYTHON at an environment with "
            "autograder/jupyter/images/requirements-ngshare.txt"
        )


_course_root_is_private(COURSE_ROOT)
_ngshare_runs(NGSHARE_PYTHON)
_copy_student_settings(COURSE_ROOT, STUDENT_SETTINGS)

c.JupyterHub.bind_url = os.environ.get("HUB_BIND_URL", "http://127.0.0.1:8000")
# CHANGE: a real authenticator (PAM, OAuth, LTI). The dummy one is for trials.
c.JupyterHub.authenticator_class = os.environ.get("HUB_AUTHENTICATOR", "pam")
c.Authenticator.allowed_users = set(INSTRUCTORS + STUDENTS + [GRADER])
c.Authenticator.admin_users = set(INSTRUCTORS)

c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    "COURSE_EXCHANGE": EXCHANGE,
    "COURSE_NGSHARE_URL": NGSHARE_URL,  # the exchange (student nbgrader_config.py)
    # the student JupyterLab settings of `make lab`: assignment list, Validate
    "JUPYTER_CONFIG_DIR": STUDENT_SETTINGS,
}
c.Spawner.pre_spawn_hook = _private_home

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
        "oauth_no_confirm": True,  # the instructors' own course: no consent page
        "environment": {
            "COURSE_EXCHANGE": EXCHANGE,
            "COURSE_NGSHARE_URL": NGSHARE_URL,
            "COURSE_ROOT": COURSE_ROOT,
            # formgrader and the create-assignment toolbar (`make instructor`)
            "JUPYTER_CONFIG_DIR": os.path.join(
                COURSE_ROOT, "autograder/jupyter/instructor"
            ),
            # its home page: formgrader in a tab of its own (the hub's
            # Services menu), never framed; JupyterLab is at /lab beside it
            "JUPYTERHUB_DEFAULT_URL": "/formgrader",
        },
    }
]

# JupyterHub 5 gives a managed service ten 1-second tries to answer, then
# exits (JupyterHub.start_service; no setting changes it). The course service,
# a Jupyter server loading nbgrader's extensions, took longer than that twice
# on a loaded 2-core machine (2026-12-07), so a managed service with a URL
# gets SERVICE_START_TIMEOUT seconds instead; the hub still exits if the
# service's process ends or never answers.
SERVICE_START_TIMEOUT = float(os.environ.get("COURSE_SERVICE_START_TIMEOUT", "120"))


def _patient_start(start_service):
    async def start(self, name, service, ssl_context=None):
        if not (service.managed and service.url):
            return await start_service(self, name, service, ssl_context)
        from jupyterhub.objects import Server
        from jupyterhub.utils import AnyTimeoutError, make_ssl_context

        if ssl_context is None:  # as JupyterHub's own start_service
            import ssl

            ssl_context = make_ssl_context(
                self.internal_ssl_key,
                self.internal_ssl_cert,
                cafile=self.internal_ssl_ca,
                purpose=ssl.Purpose.CLIENT_AUTH,
            )
        self.log.info("Starting managed service %s at %s", name, service.url)
        try:
            await service.start()
        except Exception:
            self.log.critical("Failed to start service %s", name, exc_info=True)
            return False
        server = Server.from_orm(service.orm.server)
        waited = 0.0
        while True:  # one try at least, whatever the setting
            try:
                await server.wait_up(http=True, timeout=5, ssl_context=ssl_context)
                return True
            except AnyTimeoutError:
                waited += 5
                status = await service.spawner.poll()
                if status is not None:
                    self.log.critical("Service %s exited with %s", name, status)
                    return False
            if waited >= SERVICE_START_TIMEOUT:
                break
        self.log.critical(
            "Service %s did not answer in %.0f s (COURSE_SERVICE_START_TIMEOUT)",
            name,
            SERVICE_START_TIMEOUT,
        )
        return False

    return start


def _wait_for_services() -> None:
    from jupyterhub.app import JupyterHub

    if not getattr(JupyterHub.start_service, "patient", False):
        JupyterHub.start_service = _patient_start(JupyterHub.start_service)
        JupyterHub.start_service.patient = True


_wait_for_services()

# ngshare: the exchange, as a hub service run by the hub's account. Its
# admins (the course service, the instructors) make the course and its
# roster: `ngshare-course-management create_course gpu-course gpu-course`,
# then `add_students gpu-course roster.csv` (or `add_student`).
os.makedirs(NGSHARE_STATE, mode=0o700, exist_ok=True)
os.chmod(NGSHARE_STATE, 0o700)  # its files: the hub's account alone reads them
c.JupyterHub.services.append(
    {
        "name": "ngshare",
        "url": f"http://127.0.0.1:{NGSHARE_PORT}",
        "command": [
            NGSHARE_PYTHON,
            "-m",
            "ngshare",
            f"--admins={','.join([COURSE_ID, *INSTRUCTORS])}",
            f"--database=sqlite:///{os.path.join(NGSHARE_STATE, 'ngshare.db')}",
            f"--storage={os.path.join(NGSHARE_STATE, 'files')}",
        ],
    }
)

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
