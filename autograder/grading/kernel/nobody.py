"""A root grader's kernel runs as nobody: the files it must still reach.

Before ``unshare`` the stand-in hands the kernel's working folder and
connection file to nobody (:func:`hand_over`); in the reaper, over each
topmost folder closed to nobody an empty tmpfs is mounted and only what the
kernel needs (:func:`needs`: Python, its modules, the course's packages, the
settings folders) is bind-mounted back at its place (:func:`expose`). See
:mod:`autograder.grading.kernel.namespaces`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path
from typing import Any

#: The uid and gid a kernel runs as, inside and outside, when the grader is root.
NOBODY = 65534
#: Settings folders in the home folder that a kernel of a root grader keeps.
SETTINGS = (".ipython", ".config/matplotlib", ".cache/matplotlib")
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC = 2, 4, 8, 4096, 1 << 14


def hand_over(folder: str, files: list[str]) -> None:
    """As root, before unshare: the kernel's folder and files become nobody's,
    and root's supplementary groups go (for the kernel too)."""
    os.setgroups([])
    mode = os.stat(folder).st_mode
    home = os.path.realpath(os.path.expanduser("~"))
    if folder not in ("/", home) and not mode & stat.S_IWOTH:  # never /tmp, nor /
        os.chown(folder, NOBODY, NOBODY)
    for name in files:
        os.chown(name, NOBODY, NOBODY)


def _closed(folder: str) -> bool:
    """Whether nobody (no supplementary groups) cannot go through ``folder``."""
    st = os.stat(folder)
    owner, group = st.st_uid == NOBODY, st.st_gid == NOBODY
    bit = stat.S_IXUSR if owner else stat.S_IXGRP if group else stat.S_IXOTH
    return not st.st_mode & bit


def _home() -> str:
    """The home folder, which a tmpfs of nobody's will stand in for ('': none)."""
    home = os.path.realpath(os.path.expanduser("~"))
    if home == "/" or not os.path.isdir(home):
        return ""
    return "" if any(_closed(str(a)) for a in Path(home).parents) else home


def _tops(paths: list[str], home: str) -> dict[str, list[str]]:
    """The paths behind a folder closed to nobody, by the topmost such folder,
    ``home`` standing for every folder in it (tops are never nested); only the
    outermost of nested paths."""
    tops: dict[str, list[str]] = {home: []} if home else {}
    # each path where it really is, and where it is named (a link in a closed
    # folder is reached through that folder)
    named = {q for p in paths if p for q in (os.path.realpath(p), os.path.abspath(p))}
    for path in sorted(named, key=len):
        if not os.path.exists(path) or path == home:
            continue
        top = home if home and Path(path).is_relative_to(home) else ""
        for above in [] if top else reversed(Path(path).parents):
            if _closed(str(above)):
                top = str(above)
                break
        inside = tops.setdefault(top, []) if top else []
        if top and not any(Path(path).is_relative_to(q) for q in inside):
            inside.append(path)
    return tops


def expose(paths: list[str], libc: Any, check: Any) -> None:
    """In the reaper: make ``paths`` reachable by nobody. Over each top
    (:func:`_tops`) an empty tmpfs, the way down rebuilt in it and each path
    bind-mounted at its place; the home folder's tmpfs is nobody's, and so are
    its :data:`SETTINGS` folders (IPython and matplotlib want them writable)."""
    home = _home()
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    for top, inside in _tops(paths, home).items():
        fds = {}
        for path in inside:
            with contextlib.suppress(OSError):  # not there for us either
                fds[path] = os.open(path, os.O_PATH | os.O_CLOEXEC)
        own = b",uid=65534,gid=65534,size=8m" if top == home else b""
        tmpfs = libc.mount(b"tmpfs", top.encode(), b"tmpfs", flags, b"mode=755" + own)
        check(f"mounting a tmpfs on {top}", tmpfs)
        for path, fd in fds.items():
            os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                os.mkdir(path, 0o755)
            else:
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
            source = f"/proc/self/fd/{fd}".encode()
            bound = libc.mount(source, path.encode(), None, MS_BIND | MS_REC, None)
            os.close(fd)
            check(f"mounting {path}", bound)
    for name in SETTINGS if home else ():
        folder = os.path.join(home, name)
        os.makedirs(folder, mode=0o755, exist_ok=True)
        if os.stat(folder).st_dev == os.stat(home).st_dev:  # ours, not bound in
            os.chown(folder, NOBODY, NOBODY)


def needs() -> list[str]:
    """What a kernel reads besides its folder and connection file: Python, its
    modules, and what the grader's :data:`SETTINGS` folders hold."""
    found = [os.path.dirname(os.path.realpath(sys.executable)), *sys.path]
    found += [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
    # the course's packages where this process found them (a link in a closed
    # folder, say), not the folder around them (it may hold a gradebook)
    for name in ("autograder", "course"):
        found += list(getattr(sys.modules.get(name), "__path__", None) or [])
    for name in SETTINGS:
        folder = os.path.join(os.path.expanduser("~"), name)
        with contextlib.suppress(OSError):
            found += [os.path.join(folder, entry) for entry in os.listdir(folder)]
    return found


__all__ = ["NOBODY", "SETTINGS", "expose", "hand_over", "needs"]
