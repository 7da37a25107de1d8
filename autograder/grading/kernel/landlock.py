"""Landlock through its three system calls: restrict this process for good.

:func:`enforce` applies a :class:`Policy` (folders to read, folders to write,
device files, TCP ports) to the calling thread and everything it starts;
:func:`abi` says which Landlock version the running kernel offers. What a
grading kernel's policy holds is :mod:`autograder.grading.kernel.sandbox`'s business.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass, field
from typing import Any

# Syscall numbers are the same on every Linux architecture (added in 5.13).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_PR_SET_NO_NEW_PRIVS = 38
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_ABI1_FS = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
#: Rights that make sense on a single file (the rest need a folder).
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR


class SandboxError(RuntimeError):
    """Landlock is there but the sandbox could not be put in place."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The Landlock ABI version this kernel offers; 0 where there is none."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = _libc()
        version = libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


@dataclass
class Policy:
    """What a confined process may still reach."""

    read: list[str] = field(default_factory=list)  # folders and files: read, exec
    write: list[str] = field(default_factory=list)  # folders: everything
    devices: list[str] = field(default_factory=list)  # files: read and write
    bind_ports: list[int] = field(default_factory=list)  # and connect (0: bind)


def _fs_rights(version: int) -> int:
    rights = _ABI1_FS
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    return rights


def enforce(policy: Policy, version: int | None = None) -> None:
    """Restrict this thread, and every thread and process it starts, to ``policy``.

    Call it while the process has one thread: threads that already run stay
    unrestricted. Paths that do not exist are skipped.

    Raises:
        SandboxError: Landlock is missing or refused a rule.
    """
    version = abi() if version is None else version
    if version <= 0:
        raise SandboxError("Landlock is not available")
    libc = _libc()
    fs = _fs_rights(version)
    attr = _RulesetAttr(handled_access_fs=fs)
    size = 8
    if version >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if version >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = _call(
        "landlock_create_ruleset",
        libc.syscall,
        _CREATE_RULESET,
        ctypes.byref(attr),
        size,
        0,
    )
    try:
        for paths, rights in (
            (policy.read, READ),
            (policy.write, fs),
            (policy.devices, READ_FILE | WRITE_FILE | TRUNCATE),
        ):
            for path in paths:
                _allow_path(libc, ruleset, path, rights & fs)
        if version >= 4:
            for port in sorted(set(policy.bind_ports)):
                # Its own ports: bind, and connect (ipykernel 7 talks to itself).
                access = NET_BIND_TCP | (NET_CONNECT_TCP if port else 0)
                rule = _NetPortAttr(allowed_access=access, port=port)
                _call(
                    f"port {port}",
                    libc.syscall,
                    _ADD_RULE,
                    ruleset,
                    _RULE_NET_PORT,
                    ctypes.byref(rule),
                    0,
                )
        _call("no_new_privs", libc.prctl, _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _call("landlock_restrict_self", libc.syscall, _RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)


def _call(what: str, function: Any, *args: Any) -> int:
    """Call a libc function; a negative result becomes a SandboxError."""
    result = int(function(*args))
    if result < 0:
        raise SandboxError(f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


def _allow_path(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not there: nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
        _call(
            path,
            libc.syscall,
            _ADD_RULE,
            ruleset,
            _RULE_PATH_BENEATH,
            ctypes.byref(rule),
            0,
        )
    finally:
        os.close(fd)
