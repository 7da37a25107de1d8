"""A seccomp filter for grading kernels: no UDP, no new UNIX sockets, no io_uring,
no new namespaces, no tracing or kernel keyrings, and no system call of another ABI.

Landlock (:mod:`autograder.grading.kernel.sandbox`) covers files, TCP and
signals; it does not cover UDP (a DNS query could still carry data off the
machine) or UNIX sockets named by path (a way to talk to local services). This
filter, installed with ``prctl(PR_SET_SECCOMP)`` in the kernel's process before
any student code runs, makes ``socket()`` fail with ``EPERM`` for

* ``AF_UNIX`` (pathname and abstract alike: seccomp cannot read the address a
  later ``connect`` names, so creating the socket is refused; ``socketpair``,
  which Python's asyncio and ZeroMQ use internally, keeps working);
* ``AF_INET`` and ``AF_INET6`` datagram and raw sockets (UDP, ICMP);
* any ``AF_PACKET`` (raw frames), ``AF_ALG`` (the kernel's crypto code, a
  frequent source of exploits) or ``AF_VSOCK`` (the hypervisor's host) socket;
* ``AF_NETLINK`` sockets (the kernel's own interfaces: audit, sock_diag, which
  lists every socket of the machine, netfilter, uevents...) but
  ``NETLINK_ROUTE``'s, which ``getifaddrs`` reads the interfaces with (ZeroMQ
  aborts the kernel when it fails with ``EPERM``) and which only reads without
  ``CAP_NET_ADMIN``;

and makes ``io_uring_setup`` fail too (io_uring can open sockets without the
``socket`` system call), and so the calls of :data:`REFUSED_CALLS`: the kernel
keyrings (``keyctl``, ``add_key``, ``request_key``), ``perf_event_open`` and
``bpf`` (large attack surfaces no lesson needs: ``torch.profiler``'s CPU
activities do without them), and reaching into another process (``ptrace``,
``process_vm_readv``, ``process_vm_writev``, ``pidfd_open``, ``pidfd_getfd``;
asyncio falls back to a thread when ``pidfd_open`` fails).

A kernel also stays in the namespaces it was given
(:mod:`autograder.grading.kernel.namespaces`): ``unshare``, ``setns`` and a
``clone`` with any ``CLONE_NEW*`` flag fail with ``EPERM``; ``clone3``, whose
flags are in memory a filter cannot read, fails with ``ENOSYS``, so that the C
library falls back to ``clone`` (threads and subprocesses still start).

The filter checks the architecture first: a call of another ABI (i386 through
``int 0x80`` on x86-64, 32-bit ARM on aarch64) and an x32 call (x86-64 numbers
from ``0x40000000``) fail with ``EPERM``, as every refusal here does: the cell
gets an ``OSError`` it can report, and the notebook's other cells are still
graded (killing the kernel would end the notebook). Its system call numbers are
those of x86-64 and aarch64; on any other architecture it is not installed
(:func:`supported`).
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

# BPF instruction classes and fields (linux/filter.h, linux/bpf_common.h).
_LD, _JMP, _RET, _ALU = 0x00, 0x05, 0x06, 0x04
_W, _ABS, _K, _JEQ, _JGE, _JSET, _AND = 0x00, 0x20, 0x00, 0x10, 0x30, 0x40, 0x50
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
# struct seccomp_data: nr (0), arch (4), instruction_pointer (8), args (16 + 8*i).
_NR, _ARCH, _ARG0, _ARG1, _ARG2 = 0, 4, 16, 24, 32

#: Per machine: (AUDIT_ARCH value, socket, io_uring_setup).
ARCHES = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
}
#: Per machine: (clone, clone3, unshare, setns).
NAMESPACE_CALLS = {
    "x86_64": (56, 435, 272, 308),
    "aarch64": (220, 435, 97, 268),
}
#: Per machine: system calls refused outright (EPERM), by name.
REFUSED_CALLS = {
    "x86_64": {
        "ptrace": 101,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "perf_event_open": 298,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "bpf": 321,
        "pidfd_open": 434,
        "pidfd_getfd": 438,
    },
    "aarch64": {
        "ptrace": 117,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "perf_event_open": 241,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "bpf": 280,
        "pidfd_open": 434,
        "pidfd_getfd": 438,
    },
}
#: x32 system calls: x86-64 numbers with this bit set (and x86-64's AUDIT_ARCH).
X32_SYSCALL_BIT = 0x40000000
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (CLONE_NEWTIME
#: is in clone's exit-signal byte: clone3 and unshare only, both refused).
CLONE_NEW_FLAGS = 0x7E020000
AF_UNIX, AF_INET, AF_INET6, AF_PACKET = 1, 2, 10, 17
AF_NETLINK, AF_ALG, AF_VSOCK, NETLINK_ROUTE = 16, 38, 40, 0
#: Address families whose sockets are refused whatever their type.
REFUSED_FAMILIES = (AF_UNIX, AF_PACKET, AF_ALG, AF_VSOCK)
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
    machine = machine or platform.machine()
    arch, nr_socket, nr_uring = ARCHES[machine]
    nr_clone, nr_clone3, nr_unshare, nr_setns = NAMESPACE_CALLS[machine]
    jeq, load = _JMP | _JEQ | _K, _LD | _W | _ABS
    x32 = [("", _JMP | _JGE | _K, X32_SYSCALL_BIT, "deny", None)]
    return _assemble(
        [
            ("", load, _ARCH, None, None),
            ("", jeq, arch, "nr", "deny"),  # another ABI (i386, arm32): refused
            ("nr", load, _NR, None, None),
            *(x32 if machine == "x86_64" else []),
            ("", jeq, nr_uring, "deny", None),
            *(("", jeq, nr, "deny", None) for nr in REFUSED_CALLS[machine].values()),
            ("", jeq, nr_clone3, "nosys", None),
            ("", jeq, nr_unshare, "deny", None),
            ("", jeq, nr_setns, "deny", None),
            ("", jeq, nr_clone, "clone", None),
            ("", jeq, nr_socket, None, "allow"),
            ("", load, _ARG0, None, None),  # the address family
            *(("", jeq, family, "deny", None) for family in REFUSED_FAMILIES),
            ("", jeq, AF_NETLINK, "netlink", None),
            ("", jeq, AF_INET, "type", None),
            ("", jeq, AF_INET6, "type", "allow"),
            ("type", load, _ARG1, None, None),  # the socket type...
            ("", _ALU | _AND | _K, SOCK_TYPE_MASK, None, None),  # ...without flags
            ("", jeq, SOCK_STREAM, "allow", "deny"),  # TCP only
            ("netlink", load, _ARG2, None, None),  # the protocol
            ("", jeq, NETLINK_ROUTE, "allow", "deny"),
            ("clone", load, _ARG0, None, None),  # the flags (their low 32 bits)
            ("", _JMP | _JSET | _K, CLONE_NEW_FLAGS, "deny", "allow"),
            ("allow", _RET | _K, _SECCOMP_RET_ALLOW, None, None),
            ("deny", _RET | _K, _SECCOMP_RET_ERRNO | errno.EPERM, None, None),
            ("nosys", _RET | _K, _SECCOMP_RET_ERRNO | errno.ENOSYS, None, None),
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
    libc.prctl.argtypes = [
        ctypes.c_int,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
    ]
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
