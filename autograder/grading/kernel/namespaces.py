"""Own user, PID and mount namespaces for a grading kernel, with a fresh ``/proc``.

Without them a kernel sees every process of the machine in ``/proc``: the
command line, memory map and environment block of the grader's processes
(secrets included) and of other grading runs. :func:`enter`, called in the
process that is about to become a kernel, builds this chain::

    stand-in (the pid the grader knows, in the grader's PID namespace)
      └── reaper (PID 1 of a new PID namespace)
            └── kernel (PID 2; returns from enter())

* the **stand-in** calls ``unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)``,
  has its uids and gids mapped (below) and forks. It stays outside as the
  kernel's pid for the grader: it lives as long as the kernel, exits with its
  exit code, dies of SIGTERM or SIGKILL (taking the namespace with it), ignores
  SIGINT (the kernel, in the same process group, gets the group's SIGINT
  itself) and kills the namespace when its own parent goes away (as
  ipykernel's parent poller did);
* the **reaper** makes every mount private, mounts a new ``proc`` on ``/proc``
  (it lists the namespace's processes only), forks the kernel, reaps orphans and
  exits with the kernel: the Linux kernel then kills whatever is left inside.
  It dies with the stand-in (``PR_SET_PDEATHSIG``);
* the **kernel** drops the capabilities it holds in the new user namespace.

A grader that is not root keeps its uid and gid inside (mapped onto
themselves, setgroups denied first). A root grader's kernel becomes ``nobody``
(:data:`NOBODY`, no supplementary groups), so that file permissions keep root's
files (``/etc/shadow``, the host's SSH keys) from it: the stand-in hands the
kernel's folder and connection file to nobody and a helper forked outside
writes the maps (:data:`ROOT_MAPS`; only root outside may map other uids);
the reaper mounts a ``tmpfs`` over each topmost folder closed to nobody
(``/root``, ``/tmp/pytest-of-root``) and over the home folder, bind-mounting
back into it just what the kernel needs (:func:`_expose`). The connection file
must be known (``enter``'s argument, else ``-f`` in ``sys.argv``): without it
the kernel stays root inside (no capabilities), as before.

Linux only; :func:`reason` says why it cannot be done here.
"""

from __future__ import annotations

import ctypes
import gc
import os
import select
import signal
import sys
import time

from autograder.grading.kernel.nobody import NOBODY, expose, hand_over, needs

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
FLAGS = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT = 1, 24, 47
_CAP_AMBIENT_CLEAR_ALL, _CAPABILITY_VERSION_3 = 4, 0x20080522
_PR_SET_DUMPABLE, _MS_BIND = 4, 4096
#: The maps of a root grader's kernel namespace: root (the stand-in and reaper,
#: which run nothing of the student's) and nobody (the kernel).
ROOT_MAPS = f"0 0 1\n{NOBODY} {NOBODY} 1\n"
#: Why the namespaces cannot be made here; filled by :func:`reason`.
_REASON: list[str] = []


class NamespaceError(RuntimeError):
    """The namespaces could not be set up."""


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_ulong,
        ctypes.c_void_p,
    ]
    libc.prctl.argtypes = [
        ctypes.c_int,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
    ]
    return libc


def _check(what: str, result: int) -> None:
    if result != 0:
        raise NamespaceError(f"{what}: {os.strerror(ctypes.get_errno())}")


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="ascii") as f:
            f.write(text)
    except OSError as exc:
        raise NamespaceError(f"writing {path}: {exc.strerror}") from None


def _unshare(as_root: bool = False) -> None:
    """New user, PID and mount namespaces, mapping our own uid and gid; as root
    :data:`ROOT_MAPS`, which a helper forked first writes from outside."""
    uid, gid, me = os.geteuid(), os.getegid(), os.getpid()
    go_read, go = os.pipe() if as_root else (-1, -1)
    helper = os.fork() if as_root else -1
    if helper == 0:  # outside, still root: wait for the go, write, leave
        code = 1
        try:
            os.close(go)
            if os.read(go_read, 1) == b"1":
                for name in ("uid_map", "gid_map"):
                    with open(f"/proc/{me}/{name}", "w", encoding="ascii") as f:
                        f.write(ROOT_MAPS)
                code = 0
        except BaseException as exc:  # noqa: BLE001 - its errno is the exit code
            code = getattr(exc, "errno", None) or 1
        os._exit(code)
    unshared, code = _libc().unshare(FLAGS), 0
    if as_root:
        os.close(go_read)
        os.write(go, b"1" if unshared == 0 else b"0")
        os.close(go)
        code = os.waitstatus_to_exitcode(os.waitpid(helper, 0)[1])
    _check("unshare(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS)", unshared)
    if as_root and code:
        raise NamespaceError(f"writing the new namespace's maps: {os.strerror(code)}")
    if not as_root:
        if os.path.exists("/proc/self/setgroups"):
            _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
        _write("/proc/self/gid_map", f"{gid} {gid} 1\n")


def _connection_file(argv: list[str]) -> str | None:
    """The file ``-f FILE`` or ``--f=FILE`` names in a kernel's arguments."""
    for i, arg in enumerate(argv):
        if arg == "-f" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--f="):
            return arg[4:]
    return None


def _mount_proc() -> None:
    """In the new PID namespace: private mounts, and its own ``/proc``."""
    libc = _libc()
    private = libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None)
    _check("making mounts private", private)
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    _check("mounting /proc", libc.mount(b"proc", b"/proc", b"proc", flags, None))


def _drop_capabilities(nobody: bool = False) -> None:
    """Give up the capabilities the new user namespace granted (for good); first
    become :data:`NOBODY` if ``nobody``."""
    libc = _libc()
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    if nobody:  # no supplementary groups since _hand_over
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        # as it was: /proc/self is the kernel's own (the uid change undid that)
        libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, _CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check("dropping capabilities", libc.capset(header, data))


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _stand_in(child: int) -> None:
    """Outside: live as long as the reaper, and take it down with us; never returns."""
    gc.disable()  # touch as little of the inherited memory as possible
    parent = os.getppid()
    try:
        pidfd: int | None = os.pidfd_open(child)
    except (AttributeError, OSError):
        pidfd = None
    while True:
        try:
            pid, status = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            os._exit(0)
        if pid:
            os._exit(_exit_code(status))
        if os.getppid() != parent:  # the grader (or warm server) is gone
            os.kill(child, signal.SIGKILL)
        if pidfd is not None:
            select.select([pidfd], [], [], 1.0)
        else:
            time.sleep(0.2)


def _reap(kernel: int) -> None:
    """PID 1: reap every orphan; leave with the kernel; never returns."""
    gc.disable()
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(0)
        if pid == kernel:
            os._exit(_exit_code(status))


def enter(connection_file: str | None = None) -> None:
    """Run the rest of this process as a kernel in its own namespaces.

    Returns in the kernel (PID 2 of a new PID namespace, with a fresh
    ``/proc``); the calling process becomes the kernel's stand-in and a reaper
    runs in between (see the module's docstring). Call it with one thread, in
    the process the grader launched or forked (it keeps that pid and process
    group), in the kernel's working folder, before anything of the student's
    runs. ``connection_file``: the kernel's (default: ``-f`` in ``sys.argv``);
    as root the kernel runs as nobody only where it is known.

    Raises:
        NamespaceError: the namespaces were refused; nothing was forked.
    """
    connection_file = connection_file or _connection_file(sys.argv)
    as_root = os.geteuid() == 0 and connection_file is not None
    folder = os.getcwd()
    files = [os.path.realpath(connection_file)] if connection_file else []
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if as_root:
        try:
            hand_over(folder, files)
        except OSError as exc:
            raise NamespaceError(f"handing the kernel's files over: {exc}") from None
    _unshare(as_root)
    kernel_sigint = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel's, not ours
    sys.stdout.flush()
    sys.stderr.flush()
    reaper = os.fork()
    if reaper:
        _stand_in(reaper)
    try:
        _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        _mount_proc()
        if as_root:
            expose([folder, *files, *needs()], _libc(), _check)
            os.chdir(folder)  # the folder as mounted now
        kernel = os.fork()
    except BaseException as exc:  # noqa: BLE001 - no kernel: say why, and leave
        print(f"grading kernel: {exc}", file=sys.stderr, flush=True)
        os._exit(70)
    if kernel:
        _reap(kernel)
    _drop_capabilities(nobody=as_root)
    if kernel_sigint is not None:
        signal.signal(signal.SIGINT, kernel_sigint)


# Can it be done here?


def _sysctl(name: str) -> str | None:
    try:
        with open(f"/proc/sys/{name}", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return None


def _probe() -> str:
    """Set the namespaces up in a throwaway child; '' if that worked, else why not."""
    read, write = os.pipe()
    # Ctrl-C waits for the fork to finish (Python's at-fork handlers would
    # report it as an ignored exception); it arrives right after.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pid = os.fork()
    if pid != 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if pid == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        code = 1
        try:
            os.close(read)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _unshare(as_root=os.geteuid() == 0)
            inner = os.fork()
            if inner == 0:
                try:
                    _mount_proc()
                    if os.geteuid() == 0:
                        expose(
                            [], _libc(), _check
                        )  # a tmpfs of nobody's on the home folder
                    os._exit(0)
                except BaseException as exc:  # noqa: BLE001
                    os.write(write, str(exc).encode()[:400])
                    os._exit(1)
            code = os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1])
        except BaseException as exc:  # noqa: BLE001
            os.write(write, str(exc).encode()[:400])
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        message = pipe.read().decode(errors="replace")
    try:
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except ChildProcessError:
        code = 0 if not message else 1
    return "" if code == 0 else message or f"the test child exited with {code}"


def reason() -> str:
    """Why a kernel cannot get its own namespaces here; '' when it can."""
    if _REASON:
        return _REASON[0]
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        why = "not Linux"
    elif _sysctl("user/max_user_namespaces") == "0":
        why = "user namespaces are turned off (sysctl user.max_user_namespaces = 0)"
    elif os.geteuid() != 0 and _sysctl("kernel/unprivileged_userns_clone") == "0":
        why = (
            "unprivileged user namespaces are turned off "
            "(sysctl kernel.unprivileged_userns_clone = 0)"
        )
    else:
        why = _probe()
        if why and os.geteuid() != 0:
            if _sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1":
                why += (
                    " (AppArmor restricts unprivileged user namespaces: "
                    "sysctl kernel.apparmor_restrict_unprivileged_userns)"
                )
    _REASON.append(why)
    return why


def available() -> bool:
    """Whether grading kernels can get their own namespaces here (checked once)."""
    return not reason()


def on_colab() -> bool:
    """Whether this runs in a Google Colab runtime (a throwaway VM of one user)."""
    return "COLAB_RELEASE_TAG" in os.environ or "COLAB_GPU" in os.environ


def use(required: bool = True) -> bool:
    """Whether kernels get namespaces; raise if they cannot and ``required``.

    Raises:
        NamespaceError: they are required and this machine refuses them.
    """
    if available():
        return True
    if required and not on_colab():
        raise NamespaceError(
            "grading kernels cannot get their own user, PID and mount namespaces "
            f"here: {reason()}. Without them a submission can read the command "
            "lines and environment of the grader's processes in /proc. Allow user "
            "namespaces (for example sysctl -w user.max_user_namespaces=15000, or "
            "kernel.unprivileged_userns_clone=1), or pass --allow-weak-confinement "
            "(GradingExecute.require_namespaces = False) to grade without them"
        )
    return False
