"""What a grading kernel gets: an allow-listed environment, seccomp, a process cage."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time

import pytest

from autograder.grading.kernel import seccomp
from autograder.grading.kernel.limits import ProcessCage, folder_bytes, kernel_env

needs_seccomp = pytest.mark.skipif(
    not seccomp.supported(), reason="seccomp filter: Linux on x86-64 or aarch64 only"
)


def test_only_allowed_variables_reach_a_kernel():
    env = {
        "PATH": "/usr/bin",
        "HOME": "/home/x",
        "LC_ALL": "C",
        "OMP_NUM_THREADS": "1",
        "JPY_PARENT_PID": "1",
        "AWS_SECRET_ACCESS_KEY": "s3cret",
        "GITHUB_TOKEN": "t",
        "COURSE_CACHE_DIR": "/secret/cache",
        "JUPYTERHUB_API_TOKEN": "hub-token",
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    kept = kernel_env(env)
    assert set(kept) == {
        "PATH",
        "HOME",
        "LC_ALL",
        "OMP_NUM_THREADS",
        "JPY_PARENT_PID",
        "JUPYTER_PLATFORM_DIRS",
        "NUMBA_ENABLE_CUDASIM",  # grading kernels always simulate CUDA kernels
        "KINETO_LOG_LEVEL",  # torch.profiler's log lines, off
        "CUDA_VISIBLE_DEVICES",  # grading sees no GPU on any machine
    }
    assert kept["NUMBA_ENABLE_CUDASIM"] == "1"


def test_the_filter_checks_the_architecture_for_both_machines():
    for machine, (arch, _, _) in seccomp.ARCHES.items():
        program = seccomp.program(machine)
        first_jump = program[1]
        assert int.from_bytes(first_jump[4:8], sys.byteorder) == arch
        assert all(len(i) == 8 for i in program)


PROBE = r"""
import json, socket, sys
from autograder.grading.kernel import seccomp
seccomp.install()
out = {}
for name, args in {
    "tcp": (socket.AF_INET, socket.SOCK_STREAM),
    "tcp6": (socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_NONBLOCK),
    "udp": (socket.AF_INET, socket.SOCK_DGRAM),
    "udp6": (socket.AF_INET6, socket.SOCK_DGRAM),
    "unix": (socket.AF_UNIX, socket.SOCK_STREAM),
    "unix-dgram": (socket.AF_UNIX, socket.SOCK_DGRAM),
}.items():
    try:
        socket.socket(*args).close()
        out[name] = "ok"
    except OSError as exc:
        out[name] = exc.errno
a, b = socket.socketpair()
out["socketpair"] = "ok"
print(json.dumps(out))
"""


@needs_seccomp
def test_seccomp_refuses_udp_and_unix_sockets_but_not_tcp_or_socketpair():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["tcp"] == out["tcp6"] == out["socketpair"] == "ok"
    assert {out[k] for k in ("udp", "udp6", "unix", "unix-dgram")} == {1}  # EPERM
    assert platform.machine() in seccomp.ARCHES


def test_a_cage_kills_every_process_even_those_in_new_sessions():
    cage = ProcessCage("test", max_pids=64)
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, time\n"
            "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
            "time.sleep(300)",
        ],
        start_new_session=True,
    )
    try:
        cage.add(parent.pid)
        time.sleep(0.5)
        if cage.kind == "cgroup":
            assert len(cage.pids()) == 2  # the child left the session, not the cage
    finally:
        cage.remove()
    parent.wait(timeout=10)
    if cage.kind == "cgroup":
        left = subprocess.run(["pgrep", "-f", "^sleep 300$"], capture_output=True)
        assert left.stdout == b""


def test_a_cage_caps_the_number_of_processes():
    cage = ProcessCage("test", max_pids=8)
    if cage.kind != "cgroup":
        cage.remove()
        pytest.skip("no writable pids cgroup here: the process group is killed instead")
    code = (  # forks only once it is in the cage (a line on stdin says so)
        "import os, sys, time\nsys.stdin.readline()\nn = 0\n"
        "try:\n    for _ in range(50):\n        if os.fork() == 0:\n"
        "            time.sleep(60)\n            os._exit(0)\n        n += 1\n"
        "except OSError:\n    pass\nprint(n, flush=True)\ntime.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        cage.add(proc.pid)
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        started = int(proc.stdout.readline())
        assert started < 8
    finally:
        cage.remove()
        proc.wait(timeout=10)


def test_folder_bytes_counts_what_was_written(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.bin").write_bytes(os.urandom(200_000))
    assert folder_bytes(tmp_path) >= 200_000
    assert folder_bytes(tmp_path, stop_at=10) > 10
