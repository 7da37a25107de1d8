"""What a confined grading kernel cannot see or do: other processes in /proc, other
system call ABIs, new namespaces; and what the grader's workers do not carry."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from traitlets.config import Config

from autograder.grading.kernel import namespaces, sandbox, seccomp, warmkernel
from autograder.grading.kernel.limits import ProcessCage, worker_env

on_x86_64_linux = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and platform.machine() == "x86_64"),
    reason="i386 and x32 system calls: x86-64 Linux only",
)
needs_namespaces = pytest.mark.skipif(
    sandbox.abi() == 0 or not namespaces.available(),
    reason=f"no confined kernels in namespaces here: {sandbox.status()}",
)

SECCOMP_PROBE = r"""
import ctypes, json, mmap, os, socket, subprocess, sys, threading
from autograder.grading.kernel import seccomp
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# push rbx; mov eax, 359 (i386 socket); mov ebx, AF_INET; mov ecx, SOCK_DGRAM;
# xor edx, edx; int 0x80; pop rbx; ret
CODE = bytes.fromhex("53 b867010000 bb02000000 b902000000 31d2 cd80 5b c3")
page = mmap.mmap(-1, mmap.PAGESIZE,
                 prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(CODE)
address = ctypes.addressof(ctypes.c_char.from_buffer(page))
i386_udp_socket = ctypes.CFUNCTYPE(ctypes.c_int)(address)

def result(value):
    return value if value >= 0 else -ctypes.get_errno()

def x32_unix_socket():
    return result(libc.syscall(0x40000000 | 41, socket.AF_UNIX, socket.SOCK_STREAM, 0))

def namespace_calls(out):
    child = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(NEWUSER|SIGCHLD)
    if child == 0:
        os._exit(0)
    out["clone"] = result(child)
    if child > 0:
        os.waitpid(child, 0)
    fd = os.open("/proc/self/ns/uts", os.O_RDONLY)
    out["setns"] = result(libc.setns(fd, 0))
    os.close(fd)
    out["unshare"] = result(libc.unshare(0x10000000))  # CLONE_NEWUSER, last

def probe():
    out = {"i386": i386_udp_socket(), "x32": x32_unix_socket()}
    for fd in (out["i386"], out["x32"]):
        if fd >= 0:
            os.close(fd)
    ran = []
    thread = threading.Thread(target=ran.append, args=("ran",))
    thread.start()
    thread.join()
    out["thread"] = ran
    out["subprocess"] = subprocess.run(["true"]).returncode
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    out["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    out["tcp"] = "ok"
    return out

before = probe()
seccomp.install()
after = probe()
namespace_calls(after)
print(json.dumps({"before": before, "after": after}))
"""


@pytest.fixture(scope="module")
def filtered() -> dict:
    command = [sys.executable, "-c", SECCOMP_PROBE]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode < 0:
        pytest.skip(f"the probe died of signal {-done.returncode} (no i386 ABI?)")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@on_x86_64_linux
def test_an_i386_socket_call_through_int_0x80_is_refused(filtered):
    if filtered["before"]["i386"] < 0:
        pytest.skip("this Linux has no i386 system calls at all")
    assert filtered["after"]["i386"] == -1  # EPERM


@on_x86_64_linux
def test_an_x32_system_call_is_refused(filtered):
    assert filtered["after"]["x32"] == -1  # EPERM, whether or not x32 is built in


@on_x86_64_linux
def test_no_new_namespaces_once_filtered(filtered):
    after = filtered["after"]
    assert after["unshare"] == after["clone"] == after["setns"] == -1  # EPERM


@on_x86_64_linux
def test_threads_subprocesses_and_tcp_still_work_once_filtered(filtered):
    after = filtered["after"]
    assert after["thread"] == ["ran"]  # clone3 refused with ENOSYS: clone instead
    assert after["subprocess"] == 0 and after["fork"] == 7 and after["tcp"] == "ok"


def test_the_filter_refuses_other_abis_and_x32():
    for machine in seccomp.ARCHES:
        program = seccomp.program(machine)
        words = [int.from_bytes(i[4:8], sys.byteorder) for i in program]
        assert (seccomp.X32_SYSCALL_BIT in words) == (machine == "x86_64")
        assert seccomp.CLONE_NEW_FLAGS in words
        # Another architecture jumps to the refusal, at the end, not to "allow".
        assert program[1][3] >= len(program) - 5


def test_without_namespaces_grading_stops_unless_weaker_is_accepted(monkeypatch):
    from autograder.classgrade.request import Request, _check_confinement
    from autograder.cli import build_parser

    def check(sandbox_on: bool, weak: bool) -> str:
        return _check_confinement(
            Request(Path("."), sandbox=sandbox_on, weak_confinement=weak)
        )

    monkeypatch.setattr(namespaces, "_REASON", ["user namespaces are turned off"])
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delenv("COLAB_GPU", raising=False)
    with pytest.raises(namespaces.NamespaceError, match="--allow-weak-confinement"):
        namespaces.use(required=True)
    assert namespaces.use(required=False) is False
    if sandbox.abi() > 0:
        with pytest.raises(ValueError, match="turned off.*--allow-weak-confinement"):
            check(True, weak=False)
        assert "namespaces: none (user namespaces are turned off)" in sandbox.status()
    check(True, weak=True)
    assert check(False, weak=False) == "not confined: --no-sandbox"  # no check
    for command in (["grade", "x"], ["check", "x"]):
        args = build_parser().parse_args([*command, "--allow-weak-confinement"])
        assert args.allow_weak_confinement


def test_status_says_which_layers_apply():
    line = sandbox.status()
    if sandbox.abi() > 0:
        assert ("namespaces: own user, PID and mount" in line) == namespaces.available()


WORKER_PROBE = """
import os
from pathlib import Path
from autograder.classgrade.batch import worker_pool
with worker_pool(1, preload=()) as pool:
    block = pool.submit(Path("/proc/self/environ").read_bytes).result()
    print(b"AWS_SECRET_ACCESS_KEY" in block, b"COURSE_PROBE_DIR" in block,
          pool.submit(os.getenv, "AWS_SECRET_ACCESS_KEY").result(),
          pool.submit(os.getenv, "COURSE_PROBE_DIR").result())
"""


def test_pool_workers_start_without_the_graders_secrets():
    env = dict(os.environ, AWS_SECRET_ACCESS_KEY="s3cret", COURSE_PROBE_DIR="/x")
    done = subprocess.run(
        [sys.executable, "-c", WORKER_PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "None", "/x"]
    assert "AWS_SECRET_ACCESS_KEY" not in worker_env(env)


KERNEL_PROBE = """
import ctypes, json, os, threading
out = {{"pid": os.getpid(),
        "procs": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}}
for pid in {targets!r}:
    for name in ("environ", "cmdline", "maps"):
        try:
            open(f"/proc/{{pid}}/{{name}}", "rb").read()
            out[name] = "read"
        except OSError as exc:
            out[name] = out.get(name, type(exc).__name__)
libc = ctypes.CDLL(None, use_errno=True)
out["unshare"] = ctypes.get_errno() if libc.unshare(0x10000000) else "made"
ran = []
thread = threading.Thread(target=ran.append, args=("ran",))
thread.start()
thread.join()
out["thread"] = ran
print(json.dumps(out))
"""


@pytest.fixture()
def confined(monkeypatch):
    """A function that runs cells in a confined kernel, warm or cold."""

    def run(cells, tmp_path, warm, timeout=60):
        if warm and not warmkernel.supported():
            pytest.skip("warm kernels fork: Linux only")
        nb = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell(c) for c in cells]
        )
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=True,
            interrupt_on_timeout=True,
            kernel_manager_class=warmkernel.manager_class(),
            config=Config(
                WarmKernelManager={"warm": warm, "confine": True, "namespaces": True}
            ),
            resources={"metadata": {"path": str(tmp_path)}},
        )
        return nb, client

    yield run


@pytest.fixture(scope="module", autouse=True)
def _one_server():
    """One warm server for the module's kernels (it takes seconds to start)."""
    yield
    if warmkernel._SERVER is not None:
        warmkernel._SERVER.close()
        warmkernel._SERVER = None


@pytest.mark.slow
@needs_namespaces
@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_a_kernel_sees_only_its_own_processes(warm, confined, tmp_path):
    grader = [os.getpid()]
    if warm:
        grader.append(warmkernel.server_for(dict(os.environ)).process.pid)
    before = dict(warmkernel.LAUNCHED)
    nb, client = confined([KERNEL_PROBE.format(targets=grader)], tmp_path, warm)
    client.execute()
    kind = "warm" if warm else "cold"
    assert warmkernel.LAUNCHED[kind] == before[kind] + 1
    out = json.loads(nb.cells[0].outputs[0]["text"])
    assert out["procs"] == [1, out["pid"]]  # the reaper and the kernel
    assert {out[k] for k in ("environ", "cmdline", "maps")} == {"FileNotFoundError"}
    assert out["unshare"] == 1  # EPERM
    assert out["thread"] == ["ran"]


@pytest.mark.slow
@needs_namespaces
def test_a_timed_out_cell_is_interrupted_in_a_confined_kernel(confined, tmp_path):
    cells = ["while True:\n    pass", "print('still here')"]
    nb, client = confined(cells, tmp_path, warm=True, timeout=3)
    client.execute()
    assert nb.cells[0].outputs[-1]["ename"] == "KeyboardInterrupt"
    assert "still here" in nb.cells[1].outputs[0]["text"]


@pytest.mark.slow
@needs_namespaces
@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_the_cage_kills_a_confined_kernel_and_all_it_started(warm, confined, tmp_path):
    marker = "317.25"  # a sleep no other test starts
    start = (
        "import subprocess\n"
        f"subprocess.Popen(['sleep', '{marker}'], start_new_session=True)"
    )
    nb, client = confined([start], tmp_path, warm)
    cage = ProcessCage("test", max_pids=64)
    try:
        with client.setup_kernel():
            kernel = client.km.provisioner.process
            cage.add(client.km.provisioner.pid)
            if cage.kind == "cgroup":
                assert len(cage.pids()) == 3  # stand-in, reaper and kernel
            client.execute_cell(nb.cells[0], 0)
            cage.remove()
            kernel.wait(timeout=10)
    finally:
        cage.remove()
    left = subprocess.run(["pgrep", "-f", f"^sleep {marker}$"], capture_output=True)
    assert left.stdout == b""


ROOT_FILES_CELL = """
import json, os, socket
out = {"uid": os.getuid()}
try:
    open("/etc/shadow").read()
    out["shadow"] = "read"
except OSError as exc:
    out["shadow"] = type(exc).__name__
try:
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4).close()  # sock_diag
    out["sock_diag"] = "made"
except OSError as exc:
    out["sock_diag"] = exc.errno
print(json.dumps(out))
"""
PROFILER_CELL = """
import torch
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p:
    torch.ones(3) + 1
print("aten::add" in [e.key for e in p.key_averages()])
"""


@pytest.mark.slow
@needs_namespaces
@pytest.mark.skipif(
    getattr(os, "geteuid", lambda: -1)() != 0,
    reason="kernels run as nobody only when the grader is root",
)
@pytest.mark.parametrize(
    "warm",
    [True, False],
    ids=["warm", "cold"],
)
def test_a_root_graders_kernel_cannot_read_etc_shadow(warm, confined, tmp_path):
    pytest.importorskip("torch")
    nb, client = confined([ROOT_FILES_CELL, PROFILER_CELL], tmp_path, warm)
    client.execute()
    out = json.loads(nb.cells[0].outputs[0]["text"])
    assert out == {"uid": 65534, "shadow": "PermissionError", "sock_diag": 1}
    printed = [o["text"] for o in nb.cells[1].outputs if o.get("name") == "stdout"]
    assert printed == ["True\n"], nb.cells[1].outputs  # the profiler still works
