"""Confine a grading kernel with Landlock, the Linux kernel's unprivileged sandbox.

A kernel that grades a submission runs the student's code as the grader's own
user. Before that code can run, :func:`confine_kernel` (called in the kernel's
process before IPython starts, while it has a single thread) restricts the
process and everything it starts, for good:

* **files**: read and execute only where Python and the system live (the
  interpreter's prefixes, its ``sys.path``, ``/usr``, ``/lib``, ``/etc``,
  ``/proc``, ``/sys``), the ``course`` package and the user's read-only
  matplotlib and IPython settings; read and write only in the kernel's scratch
  folder (its working directory, also its ``TMPDIR``) and a few device files
  (``/dev/null``, ``/dev/urandom``, the NVIDIA devices). Other students'
  submissions, the gradebook, the source notebooks with the reference answers,
  the ``autograder`` folder with its samples, ``/tmp`` and ``/dev/shm`` are out
  of reach;
* **network** (Landlock ABI 4, Linux 6.7+): no TCP connection except to the
  kernel's own ports (which the grader gave it), and no TCP port bound except
  those and ephemeral ones (ipykernel's internal pipes);
* **signals and abstract sockets** (ABI 6, Linux 6.12+): no signal to, and no
  abstract UNIX socket of, any process outside the sandbox (the grading worker,
  the warm-kernel server, other kernels). Landlock also forbids ``ptrace`` of
  them at every ABI, which covers ``/proc/<pid>/mem``.

UDP and new UNIX sockets, new namespaces and system calls of another ABI are
refused by a seccomp filter installed right after
(:mod:`autograder.grading.kernel.seccomp`).
Before both, the kernel gets its own user, PID and mount namespaces with a fresh
``/proc`` (:mod:`autograder.grading.kernel.namespaces`): the grader's processes and
other
grading runs are not there to read. Not covered here: memory and CPU, processes and
bytes written (:mod:`autograder.grading.kernel.limits` and the grader's limits do
that), and
anything the kernel already holds open.
Landlock needs Linux 5.13+ with the ``landlock`` LSM enabled; :func:`status`
says what this machine supports, and grading runs without it where it cannot.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys
from pathlib import Path

from autograder.grading.kernel.landlock import (  # the system calls
    Policy,
    SandboxError,
    abi,
    enforce,
)

#: Folders Python and the C libraries below it read from.
SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc", "/sys")
#: Device files a kernel may read and write (globs).
DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/nvidia*",
    "/dev/nvidia-caps/*",
    "/dev/dri/*",
)


def status() -> str:
    """One line: what a confined kernel is kept from on this machine."""
    version = abi()
    if version == 0:
        reason = (
            "not Linux"
            if not sys.platform.startswith("linux")
            else "Landlock is not enabled in this Linux kernel (needs 5.13+)"
        )
        return f"not confined: {reason}"
    parts = ["files"]
    if version >= 4:
        parts.append("TCP")
    if version >= 6:
        parts.append("signals")
    from autograder.grading.kernel import namespaces, seccomp

    extra = (
        "; seccomp: no UDP or UNIX sockets, no new namespaces, no other ABI"
        if seccomp.supported()
        else "; no seccomp filter for this architecture"
    )
    why = namespaces.reason()
    extra += (
        "; namespaces: own user, PID and mount, fresh /proc"
        if not why
        else f"; namespaces: none ({why}), other processes visible in /proc"
    )
    return f"confined with Landlock ABI {version} ({', '.join(parts)}){extra}"


# The grading kernel's policy.


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _user_settings() -> list[str]:
    """Read-only per-user folders that matplotlib and IPython look in."""
    home = Path.home()
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    found = [config / "matplotlib", cache / "matplotlib"]
    if os.environ.get("MPLCONFIGDIR"):
        found.append(Path(os.environ["MPLCONFIGDIR"]))
    try:
        from IPython.paths import get_ipython_dir

        found.append(Path(get_ipython_dir()))
    except ImportError:
        pass
    return [str(p) for p in found]


def _prepare_user_settings() -> None:
    """Create what IPython would otherwise try to create inside the sandbox."""
    try:
        from IPython.core.profiledir import ProfileDir
        from IPython.paths import get_ipython_dir

        ProfileDir.create_profile_dir_by_name(get_ipython_dir(), "default")
    except Exception:  # noqa: BLE001 - IPython then reports its own error
        pass


def kernel_policy(cwd: Path, connection_file: Path | None) -> Policy:
    """What a grading kernel may reach: see the module's docstring."""
    cwd = cwd.resolve()
    # A course checkout (solutions/, autograder/ with its samples) stays hidden,
    # even where it is on sys.path; only its `course` package is needed. An
    # installed course lives in site-packages, which must stay readable.
    course = _package_dir("course")
    checkout = (
        course.parent if course and (course.parent / "solutions").is_dir() else None
    )
    hidden = [checkout] if checkout is not None else []
    read: list[str] = [p for p in SYSTEM]
    prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    for entry in [*prefixes, *sys.path]:
        if not entry:
            continue
        path = Path(entry).resolve()
        if any(_is_within(h, path) for h in hidden) or _is_within(path, cwd):
            continue  # an ancestor of the course folder, or the scratch folder
        read.append(str(path))
    read.append(str(Path(sys.executable).resolve().parent))
    if course is not None:
        read.append(str(course))
    read += _user_settings()
    ports: list[int] = []
    if connection_file is not None:
        read.append(str(connection_file))
        try:
            info = json.loads(connection_file.read_text(encoding="utf-8"))
            ports = [int(v) for k, v in info.items() if k.endswith("_port") and v]
            # ipykernel also binds loopback pipes on ephemeral ports (port 0);
            # connecting anywhere else stays forbidden.
            ports.append(0)
        except (OSError, ValueError, TypeError):
            pass
    devices = sorted({d for pattern in DEVICES for d in glob.glob(pattern)})
    return Policy(read=read, write=[str(cwd)], devices=devices, bind_ports=ports)


def _connection_file(argv: list[str]) -> Path | None:
    for i, arg in enumerate(argv):
        if arg == "-f" and i + 1 < len(argv):
            return Path(argv[i + 1]).resolve()
        if arg.startswith("--f="):
            return Path(arg[4:]).resolve()
    return None


def enter_namespaces(connection_file: str | None = None) -> None:
    """Continue as a kernel in its own namespaces (:func:`namespaces.enter`);
    ``connection_file``: the kernel's (default: ``-f`` in ``sys.argv``), which
    a root grader's kernel, running as nobody, must still read.

    The process that calls it stays behind as the kernel's stand-in, which
    watches its parent itself, so the kernel does not (its parent is PID 1).

    Raises:
        SandboxError: the namespaces were refused; the kernel must not start.
    """
    from autograder.grading.kernel import namespaces

    try:
        namespaces.enter(connection_file)
    except namespaces.NamespaceError as exc:
        raise SandboxError(
            f"the grading kernel could not get its own namespaces: {exc}"
        ) from None
    os.environ.pop("JPY_PARENT_PID", None)


def confine_kernel(argv: list[str]) -> list[str]:
    """Confine this process as a grading kernel; return the kernel's arguments.

    Call it in the kernel's own process, in its working folder, before IPython
    starts. Points temporary files at the working folder, turns IPython's
    history file off and keeps CuPy's compiled kernels in memory (their usual
    places are shared with other users of the machine) and runs joblib serially
    (its process pools need ``/dev/shm``).

    Raises:
        SandboxError: Landlock refused; the kernel must not start unconfined.
    """
    import tempfile

    cwd = Path.cwd()
    os.environ["TMPDIR"] = str(cwd)
    tempfile.tempdir = None  # forget a folder chosen before the sandbox
    os.environ["CUPY_CACHE_IN_MEMORY"] = "1"
    os.environ["JOBLIB_MULTIPROCESSING"] = "0"  # no /dev/shm: serial, no warning
    # the referee's agent, which the kernel imports: its folder is hidden once confined
    import autograder.grading.referee.agent  # noqa: F401
    import autograder.grading.referee.launches  # noqa: F401
    from autograder.grading.referee import pins

    pins.pin()  # the course's names as loaded, before any student code
    from autograder.grading.kernel import seccomp  # its folder is hidden once confined

    _prepare_user_settings()
    enforce(kernel_policy(cwd, _connection_file(argv)))
    if seccomp.supported():
        seccomp.install()  # no UDP, no new UNIX sockets (see its module)
    return [*argv, "--HistoryManager.enabled=False"]


def main() -> None:
    """``python -m autograder.grading.kernel.sandbox [--no-namespaces] -f FILE``: a
    confined
    IPython kernel, in namespaces of its own unless told otherwise."""
    if sys.path and Path(sys.path[0] or ".").resolve() == Path.cwd():
        del sys.path[0]  # as ipykernel_launcher does
    argv = sys.argv[1:]
    if argv[:1] == ["--no-namespaces"]:
        del argv[0]
    else:
        enter_namespaces()
    argv = confine_kernel(argv)
    from ipykernel import kernelapp

    sys.argv = [sys.argv[0], *argv]
    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
