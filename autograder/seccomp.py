"""A seccomp filter for grading kernels: no UDP, no new UNIX sockets, no io_uring.

Landlock (:mod:`autograder.sandbox`) covers files, TCP and signals; it does not
cover UDP (a DNS query could still carry data off the machine) or UNIX sockets
named by path (a way to talk to local services). This filter, installed with
``prctl(PR_SET_SECCOMP)`` in the kernel's process before any student code runs,
makes ``socket()`` fail with ``EPERM`` for

* ``AF_UNIX`` (pathname and abstract alike: seccomp cannot read the address a
  later ``connect`` names, so creating the socket is refused; ``socketpair``,
  which Python's asyncio and ZeroMQ use internally, keeps working);
* ``AF_INET`` and ``AF_INET6`` datagram and raw sockets (UDP, ICMP);
* any ``AF_PACKET`` socket;

and makes ``io_uring_setup`` fail too (io_uring can open sockets without the
``socket`` system call). Everything else passes. The filter checks the
architecture first; its system call numbers are those of x86-64 and aarch64,
and on any other architecture it is not installed (:func:`supported`).
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

# BPF instruction classes and fields (linux/filter.h, linux/bpf_common.h).
_LD, _JMP, _RET, _ALU = 0x00, 0x05, 0x06, 0x04
_W, _ABS, _K, _JEQ, _JSET, _AND = 0x00, 0x20, 0x00, 0x10, 0x40, 0x50
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
# struct seccomp_data: nr (0), arch (4), instruction_pointer (8), args (16 + 8*i).
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24

#: Per machine: (AUDIT_ARCH value, socket, io_uring_setup).
ARCHES = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
}
AF_UNIX, AF_INET, AF_INET6, AF_PACKET = 1, 2, 10, 17
SOCK_STREAM, SOCK_TYPE_MASK = 1, 0xF


def supported() -> bool:
    """Whether this machine's architecture has a filter here (Linux only)."""
    return platform.system() == "Linux" and platform.machine() in ARCHES


def _assemble(lines: list[tuple]) -> list[bytes]:
    """BPF from ``(label, code, k, jump_if_true, jump_if_false)`` with labels."""
    where = {line[0]: i for i, line in enumerate(lines) if line[0]}
    out = []
    for i, (_, code, k, true, false) in enumerate(lines):
        jt = where[true] - i - 1 if true else 0
        jf = where[false] - i - 1 if false else 0
        out.append(struct.pack("HBBI", code, jt, jf, k))
    return out


def program(machine: str | None = None) -> list[bytes]:
    """The filter's BPF instructions for ``machine`` (default: this one)."""
    arch, nr_socket, nr_uring = ARCHES[machine or platform.machine()]
    jeq, load = _JMP | _JEQ | _K, _LD | _W | _ABS
    return _assemble(
        [
            ("", load, _ARCH, None, None),
            ("", jeq, arch, "nr", "allow"),  # another ABI (x32): not ours to judge
            ("nr", load, _NR, None, None),
            ("", jeq, nr_uring, "deny", None),
            ("", jeq, nr_socket, None, "allow"),
            ("", load, _ARG0, None, None),  # the address family
            ("", jeq, AF_UNIX, "deny", None),
            ("", jeq, AF_PACKET, "deny", None),
            ("", jeq, AF_INET, "type", None),
            ("", jeq, AF_INET6, "type", "allow"),
            ("type", load, _ARG1, None, None),  # the socket type...
            ("", _ALU | _AND | _K, SOCK_TYPE_MASK, None, None),  # ...without flags
            ("", jeq, SOCK_STREAM, "allow", "deny"),  # TCP only
            ("allow", _RET | _K, _SECCOMP_RET_ALLOW, None, None),
            ("deny", _RET | _K, _SECCOMP_RET_ERRNO | errno.EPERM, None, None),
        ]
    )


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Install the filter on this thread and its future children (irreversible).

    Raises:
        OSError: the kernel refused (no seccomp, or not allowed here).
    """
    code = b"".join(program())
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                           ctypes.c_ulong, ctypes.c_ulong]  # fmt: skip
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
