"""The warm compile server (autograder.grading.compile_server): it compiles as a
process of its own does, and a request cannot outlive, read or leave anything
behind it."""

from __future__ import annotations

import os
import sys

import pytest

from autograder.grading import cuda_compile
from autograder.grading.cuda_compile import compile_kernels
from tests.autograder.test_cuda_compile import (  # noqa: F401
    BAD_KERNELS,
    BAD_SOURCE,
    _compile_or_skip,
    bad,
)

_FILL = "from numba import cuda\n\n\n@cuda.jit\ndef fill(x):\n    x[0] = 1.0\n"


def test_the_warm_server_compiles_as_a_process_of_its_own_does(
    bad,  # noqa: F811 - the fixture, imported
    monkeypatch,
):
    """``bad`` was compiled through this process's server; the same request
    through a process of its own gives the same messages."""
    from autograder.grading import compile_server

    if compile_server._server is None:
        pytest.skip(f"no compile server here: {compile_server._broken}")
    pid = compile_server._server.process.pid
    assert _compile_or_skip(_FILL, {"fill": ["void(float64[::1])"]}) == {"fill": None}
    assert compile_server._server.process.pid == pid  # the same server, warm
    monkeypatch.setattr(compile_server, "run", lambda *a: None)
    alone = _compile_or_skip(BAD_SOURCE, BAD_KERNELS)
    assert alone == bad


def test_a_request_past_its_time_ends_its_child_not_the_server():
    from autograder.grading import compile_server

    spin = "while True:\n    pass\n" + _FILL
    got = _compile_or_skip(spin, {"fill": ["void(float64[::1])"]}, timeout=3)
    assert "took longer than 3 s" in got["fill"]
    if compile_server._server is None:
        pytest.skip(f"no compile server here: {compile_server._broken}")
    pid = compile_server._server.process.pid
    assert _compile_or_skip(_FILL, {"fill": ["void(float64[::1])"]}) == {"fill": None}
    assert compile_server._server.process.pid == pid


def test_a_request_holds_no_end_of_the_servers_pipes(tmp_path):
    """What runs for one submission cannot read the next request or answer it:
    its stdin is empty and its only pipe is its own events'."""
    from autograder.grading import compile_server

    probe = (
        """
import os
import stat

from numba import cuda

pipes = []
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and fd != 1 and fd != 2:
            pipes.append(fd)
    except OSError:  # the listing's own descriptor, closed by now
        pass
assert len(pipes) == 1, pipes
assert os.read(0, 10) == b"", "stdin is the server's"
"""
        + _FILL
    )
    got = _compile_or_skip(probe, {"fill": ["void(float64[::1])"]})
    if compile_server._server is None:
        pytest.skip(f"no compile server here: {compile_server._broken}")
    assert got == {"fill": None}, got


def test_what_the_answer_puts_at_its_stderr_path_is_not_read(tmp_path):
    """The answer may replace its folder's files; the caller reads the stderr
    it made, through its own descriptor, never a link the answer put there."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    swap = f"""
import os

os.remove(".stderr")
os.symlink({str(secret)!r}, ".stderr")
os._exit(3)
"""
    got = _compile_or_skip(swap + _FILL, {"fill": ["void(float64[::1])"]})
    assert "exit code 3" in got["fill"] and "TOP-SECRET" not in got["fill"], got


def test_a_process_the_answer_leaves_behind_is_ended():
    from autograder.grading import compile_server

    leave = """
import os
import time

pid = os.fork()
if pid == 0:
    os.setsid()
    # its pid as the grader sees it (the request may run in a PID namespace)
    print(f"left {os.readlink('/proc/self')}", flush=True)
    time.sleep(60)
    os._exit(0)
time.sleep(0.5)
os._exit(4)
"""
    got = _compile_or_skip(leave + _FILL, {"fill": ["void(float64[::1])"]})
    if compile_server._server is None:
        pytest.skip(f"no compile server here: {compile_server._broken}")
    assert "exit code 4" in got["fill"], got
    pid = int(got["fill"].rsplit("left ", 1)[1].split()[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_full_answer_is_remembered_when_asked_and_a_cut_one_never(monkeypatch):
    """A grading worker asks with ``remember=True``: the compiler's full answer
    for a source and request is given again without a process; an answer cut
    short (a timeout) is not kept."""
    runs = []

    def worker(folder, request, timeout):
        runs.append(request)
        said = [{"kernel": name, "message": None} for name in request["kernels"]]
        return [{"ready": True}, *said], 0, False, ""

    monkeypatch.setattr(cuda_compile, "_COMPILED", {})
    monkeypatch.setattr(cuda_compile, "_run_worker", worker)
    source = "a = 1\n"
    assert compile_kernels(source, {"a": ["void()"]}, remember=True) == {"a": None}
    assert compile_kernels(source, {"a": ["void()"]}, remember=True) == {"a": None}
    assert len(runs) == 1
    compile_kernels(source, {"a": ["void()"]})  # not asked to remember: compiled
    compile_kernels(source + "\n", {"a": ["void()"]}, remember=True)  # new source
    assert len(runs) == 3
    cut = [{"ready": True}]
    monkeypatch.setattr(cuda_compile, "_run_worker", lambda *a: (cut, 0, True, ""))
    first = compile_kernels("b = 1\n", {"b": ["void()"]}, remember=True)
    assert "took longer" in first["b"]
    monkeypatch.setattr(cuda_compile, "_run_worker", worker)
    assert compile_kernels("b = 1\n", {"b": ["void()"]}, remember=True) == {"b": None}


_END_WITH_BATCH = """
import sys, threading, time
from autograder.grading import compile_server
from autograder.grading.cuda_compile import compile_kernels

spin = "import time\\nwhile True:\\n    time.sleep(0.01)\\n" + sys.argv[1]
threading.Thread(target=compile_kernels, daemon=True,
                 args=(spin, {"fill": ["void(float64[::1])"]}),
                 kwargs={"timeout": 120}).start()
for _ in range(600):
    if compile_server._server is not None:
        print("server", compile_server._server.process.pid, flush=True)
        break
    time.sleep(0.1)
time.sleep(3600)
"""


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_the_compile_server_and_its_request_end_with_the_batch(how):
    """A SIGTERM to the grading process, or its sudden death, ends its compile
    server and the request it was compiling (nothing is left to init)."""
    import signal
    import subprocess
    import time

    from autograder.grading.kernel.limits import descendants

    proc = subprocess.Popen(
        [sys.executable, "-c", _END_WITH_BATCH, _FILL],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline().split()
        if not line:
            pytest.skip("no compile server here")
        server = int(line[1])
        deadline = time.monotonic() + 60
        while not descendants(server) and time.monotonic() < deadline:
            time.sleep(0.1)  # the request is running
        started = [server, *descendants(server)]
        assert len(started) >= 2
        proc.send_signal(getattr(signal, how))
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        alive = started
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [p for p in started if _alive(p)]
        assert not alive, f"still running after the batch ended: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return False
