"""What a confined grading kernel cannot do beyond test_confinement's: read root's
files when the grader is root, open netlink, vsock, packet or crypto sockets, or
make the system calls seccomp refuses; and what it still can (torch.profiler)."""

from __future__ import annotations

import errno
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading.kernel import namespaces, seccomp

needs_seccomp = pytest.mark.skipif(
    not seccomp.supported(), reason="seccomp filter: Linux on x86-64 or aarch64 only"
)
as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="kernels run as nobody only when the grader is root",
)

#: x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl), kept
#: apart from the filter's own table so that a wrong number there shows.
X86_64_CALLS = {
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
}


def run_child(code: str, *args: str, cwd: Path | None = None) -> dict:
    """Run ``code`` in a fresh Python; its last line of output, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    if "SKIP:" in done.stdout:
        pytest.skip(done.stdout.split("SKIP:", 1)[1].strip())
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# seccomp

FILTERED = r"""
import ctypes, json, os, platform, socket, sys
from autograder.grading.kernel import seccomp
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# Harmless arguments: each call fails without the filter too, but not with EPERM
# (an unknown request, a NULL pointer, a bad flag or descriptor).
ARGS = {
    "ptrace": (-1, 0, 0, 0), "add_key": (0, 0, 0, 0, 0),
    "request_key": (0, 0, 0, 0), "keyctl": (9999, 0, 0, 0, 0),
    "perf_event_open": (0, 0, -1, -1, 0), "process_vm_readv": (0, 0, 0, 0, 0, 1),
    "process_vm_writev": (0, 0, 0, 0, 0, 1), "bpf": (-1, 0, 0),
    "pidfd_open": (-1, 0), "pidfd_getfd": (-1, 0, 0),
}
SOCKETS = {
    "netlink-sock-diag": (socket.AF_NETLINK, socket.SOCK_RAW, 4),
    "netlink-audit": (socket.AF_NETLINK, socket.SOCK_RAW, 9),
    "netlink-uevent": (socket.AF_NETLINK, socket.SOCK_DGRAM, 15),
    "vsock": (40, socket.SOCK_STREAM, 0),
    "packet": (17, socket.SOCK_RAW, 0),
    "packet-dgram": (17, socket.SOCK_DGRAM, 0),
    "alg": (38, socket.SOCK_SEQPACKET, 0),
    "netlink-route": (socket.AF_NETLINK, socket.SOCK_RAW, 0),
}

def probe():
    out = {}
    for name, args in SOCKETS.items():
        try:
            socket.socket(*args).close()
            out[name] = "ok"
        except OSError as exc:
            out[name] = exc.errno
    for name, number in json.loads(sys.argv[1]).items():
        result = libc.syscall(number, *(ctypes.c_long(a) for a in ARGS[name]))
        out[name] = [result, ctypes.get_errno() if result < 0 else 0]
    out["interfaces"] = len(socket.if_nameindex())  # getifaddrs: NETLINK_ROUTE
    return out

before = probe()
try:
    seccomp.install()
except OSError as exc:
    print(f"SKIP: seccomp refused here: {exc}")
    sys.exit(0)
print(json.dumps({"before": before, "after": probe()}))
"""


@pytest.fixture(scope="module")
def filtered() -> dict:
    machine = platform.machine()
    calls = X86_64_CALLS if machine == "x86_64" else seccomp.REFUSED_CALLS[machine]
    return run_child(FILTERED, json.dumps(calls))


def test_the_refused_calls_and_families_are_in_the_filter():
    assert seccomp.REFUSED_CALLS["x86_64"] == X86_64_CALLS
    for machine in seccomp.ARCHES:
        program = seccomp.program(machine)
        words = [int.from_bytes(i[4:8], sys.byteorder) for i in program]
        assert set(seccomp.REFUSED_CALLS[machine].values()) <= set(words)
        assert set(seccomp.REFUSED_CALLS[machine]) == set(X86_64_CALLS)
        assert {16, 17, 38, 40} <= set(words)  # netlink, packet, alg, vsock


@needs_seccomp
def test_netlink_vsock_packet_and_crypto_sockets_are_refused(filtered):
    after = filtered["after"]
    refused = [k for k in after if k.startswith(("netlink-", "vsock", "packet", "alg"))]
    refused.remove("netlink-route")
    assert {k: after[k] for k in refused} == dict.fromkeys(refused, errno.EPERM)
    # Only NETLINK_ROUTE is left: getifaddrs reads the interfaces with it, and
    # ZeroMQ aborts the kernel when that fails.
    assert after["netlink-route"] == "ok"
    assert after["interfaces"] == filtered["before"]["interfaces"] > 0


@needs_seccomp
def test_keyrings_tracing_perf_and_bpf_calls_fail_with_eperm(filtered):
    after = filtered["after"]
    failed = {name: after[name] for name in X86_64_CALLS}
    assert failed == dict.fromkeys(X86_64_CALLS, [-1, errno.EPERM]), failed


TORCH_PROFILER = """
import json
from autograder.grading.kernel import seccomp
import torch
seccomp.install()
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p:
    torch.ones(3) + 1
events = p.key_averages()
print(json.dumps({"events": [e.key for e in events]}))
"""


@needs_seccomp
def test_the_torch_cpu_profiler_works_under_the_filter():
    pytest.importorskip("torch")
    out = run_child(TORCH_PROFILER)
    assert "aten::add" in out["events"]


# nobody


NOBODY_KERNEL = r"""
import glob, json, os, subprocess, sys
from autograder.grading.kernel import namespaces
if not namespaces.available():
    print(f"SKIP: no namespaces here: {namespaces.reason()}")
    sys.exit(0)
sys.argv[1:] = ["-f", sys.argv[1]]  # as the cold launcher has it
namespaces.enter()
out = {"ids": [*os.getresuid(), *os.getresgid()], "groups": os.getgroups()}
def attempt(name, action):
    try:
        out[name] = action()
    except OSError as exc:
        out[name] = type(exc).__name__
for path in ["/etc/shadow", "/etc/gshadow", *glob.glob("/etc/ssh/ssh_host_*_key")]:
    attempt(path, lambda: open(path, "rb").read(1) and "read")
attempt("root-ssh", lambda: os.listdir(os.path.expanduser("~/.ssh")) and "listed")
attempt("connection", lambda: open(sys.argv[2]).read())
attempt("write", lambda: open("mine.txt", "w").write("x"))
attempt("write-absolute", lambda: open(os.getcwd() + "/abs.txt", "w").write("x"))
import fractions  # the standard library, wherever Python lives
attempt("python", lambda: subprocess.run(
    [sys.executable, "-c", "import decimal; print(7)"], capture_output=True,
    text=True).stdout.strip())
print(json.dumps(out))
"""


@as_root
def test_a_root_graders_kernel_is_nobody_and_cannot_read_roots_files(tmp_path):
    # tmp_path is under /tmp/pytest-of-root, a folder closed to nobody, as
    # root's home (with the connection file in it) usually is.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    connection = tmp_path / "kernel.json"
    connection.write_text('{"key": "k"}')
    connection.chmod(0o600)
    out = run_child(NOBODY_KERNEL, str(connection), str(connection), cwd=scratch)
    assert out.pop("ids") == [namespaces.NOBODY] * 6 and out.pop("groups") == []
    secrets = {k: out.pop(k) for k in list(out) if k.startswith("/etc/")}
    assert secrets and set(secrets.values()) == {"PermissionError"}, secrets
    assert out.pop("root-ssh") in ("FileNotFoundError", "PermissionError")
    assert out == {
        "connection": '{"key": "k"}',
        "write": 1,
        "write-absolute": 1,
        "python": "7",
    }
    assert (scratch / "mine.txt").stat().st_uid == namespaces.NOBODY
