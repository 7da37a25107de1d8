"""autograder.grading.cuda_compile: kernels compiled to PTX without a GPU, messages,
signatures.

Signatures are taken here, in the simulator, as a grading kernel takes them; the
compiling happens in a separate process without it. Tests that compile skip
where libNVVM and NVRTC are not installed (``pip install -e ".[grading]"``).
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import numpy as np
import pytest

if "numba.cuda" not in sys.modules:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba.cuda is imported
cuda = pytest.importorskip("numba.cuda")
numba = pytest.importorskip("numba")
if not numba.config.ENABLE_CUDASIM:
    pytest.skip(
        "numba.cuda was imported without the simulator", allow_module_level=True
    )

from numba.core import sigutils  # noqa: E402

from autograder.grading import cuda_compile  # noqa: E402
from autograder.grading.cuda_compile import (  # noqa: E402
    CompilerUnavailable,
    UnsupportedArgument,
    compile_kernels,
    signature_of,
)
from autograder.lessons import find_lesson  # noqa: E402
from autograder.lessons.code import code_cells  # noqa: E402

#: Day 09's answer cells with kernels, and the one their host functions call.
ANSWER_CELLS = ("09-launch-config", "09-saxpy", "09-reduce", "09-fused")
KERNELS = ("saxpy_kernel", "block_sum_kernel", "fused_gradient_kernel")


def _compile_or_skip(source: str, kernels: dict, **kw) -> dict[str, str | None]:
    try:
        return compile_kernels(source, kernels, **kw)
    except CompilerUnavailable as exc:
        pytest.skip(str(exc))


def _reference_source() -> str:
    cells = {
        meta.get("grade_id"): code
        for _, code, meta in code_cells(find_lesson("09_kernels"))
        if meta.get("solution")
    }
    header = "import numpy as np\nfrom numba import cuda\n\n"
    return header + "\n\n".join(_definitions(cells[g]) for g in ANSWER_CELLS) + "\n"


def _definitions(code: str) -> str:
    """The imports, functions and literal constants of a cell (what a caller of
    compile_kernels keeps), without the calls that show the result."""
    keep = []
    for node in ast.parse(code).body:
        literal = isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        if literal or isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
            keep.append(ast.get_source_segment(code, node, padded=True))
            if isinstance(node, ast.FunctionDef) and node.decorator_list:
                first = node.decorator_list[0]
                keep[-1] = "\n".join(
                    code.splitlines()[first.lineno - 1 : node.end_lineno]
                )
    return "\n\n\n".join(keep)


class _Launches:
    """Record signature_of(args) at every simulated launch, per kernel."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from numba.cuda.simulator import kernel

        self.seen: dict[str, list[str]] = {}
        original = kernel.FakeCUDAKernel.__call__

        def call(fake, *args):
            if not fake._device:
                signatures = self.seen.setdefault(fake.fn.__name__, [])
                signature = signature_of(args)
                if signature not in signatures:
                    signatures.append(signature)
            return original(fake, *args)

        monkeypatch.setattr(kernel.FakeCUDAKernel, "__call__", call)


def _lesson_test_launches(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The signatures Day 09's test cells launch the reference kernels with."""
    namespace: dict = {"__name__": "answer"}
    exec(compile(_reference_source(), "answer.py", "exec"), namespace)
    launches = _Launches(monkeypatch)
    rng = np.random.default_rng(0)
    for dtype, a in ((np.float32, np.float32(3.0)), (np.float64, np.float64(-1.5))):
        x = np.arange(11, dtype=dtype)
        namespace["saxpy_kernel"][2, 4](a, x, x.copy(), np.zeros_like(x))
    assert namespace["reduce_sum"](np.arange(1.0, 71.0)) == pytest.approx(2485.0)
    X, y, w = rng.normal(size=(20, 3)), rng.normal(size=20), rng.normal(size=3)
    namespace["fused_gradient"](X, y, w, 0.5)
    return launches.seen


@pytest.fixture(scope="module")
def reference():
    """(signatures, results, timings) of compiling Day 09's reference kernels."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        signatures = _lesson_test_launches(monkeypatch)
    timings: dict[str, float] = {}
    results = _compile_or_skip(_reference_source(), signatures, timings=timings)
    return signatures, results, timings


# Three kernels CUDA refuses and the simulator runs, two it accepts, a plain
# function, and a check at import that the compile process does not simulate.
BAD_SOURCE = """
import os

import numpy as np
from numba import config, cuda

assert "NUMBA_ENABLE_CUDASIM" not in os.environ, "the simulator's variable is set"
assert not config.ENABLE_CUDASIM, "numba simulates CUDA in the compile process"

WEIGHTS = [0.5, 0.25, 0.25]


@cuda.jit
def dot_kernel(x, y, out):
    out[0] = np.dot(x, y)


@cuda.jit
def runtime_shared(x, partial, n):
    shared = cuda.shared.array(n, np.float64)
    shared[cuda.threadIdx.x] = x[cuda.grid(1)]
    cuda.syncthreads()
    partial[0] = shared[0]


@cuda.jit
def shared_list(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * WEIGHTS[i % 3]


@cuda.jit(device=True)
def square(v):
    return v * v


@cuda.jit
def uses_device_function(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = square(x[i])


@cuda.jit("void(float64[::1])")
def eager_signature(x):
    x[0] = 1.0


def plain(x):
    x[0] = 1.0
"""
BAD_KERNELS = {
    "dot_kernel": ["void(float64[::1], float64[::1], float64[::1])"],
    "runtime_shared": ["void(float64[::1], float64[::1], int64)"],
    "shared_list": ["void(float64[::1])"],
    "uses_device_function": ["void(float64[::1], float64[::1])"],
    "eager_signature": ["void(float64[::1])"],
    "plain": ["void(float64[::1])"],
    "gone": ["void()"],
}


@pytest.fixture(scope="module")
def bad():
    return _compile_or_skip(BAD_SOURCE, BAD_KERNELS)


# --- signatures (no compiler needed) ----------------------------------------


def test_signature_of_numpy_arrays_and_numbers():
    got = signature_of(
        (
            np.zeros(4),
            np.zeros((2, 3), np.float32),
            np.asfortranarray(np.zeros((2, 3))),
            np.zeros(8)[::2],
            np.float32(1.5),
            2.5,
            7,
            np.int32(3),
            True,
            (1, 2),
        )
    )
    assert got == (
        "void(float64[::1], float32[:, ::1], float64[::1, :], float64[:], float32, "
        "float64, int64, int32, boolean, UniTuple(int64, 2))"
    )
    sigutils._parse_signature_string(got)  # numba reads it back


def test_signature_of_simulator_device_arrays():
    on_device = cuda.to_device(np.zeros((3, 4), np.float64))
    empty = cuda.device_array(5, dtype=np.int32)
    hinted = cuda.InOut(np.zeros(3, np.float32))
    got = signature_of((on_device, empty, hinted, np.ones(5), np.float64(2.0)))
    assert got == (
        "void(float64[:, ::1], int32[::1], float32[::1], float64[::1], float64)"
    )


def test_signature_of_arrays_of_the_simulated_gpu_s_store():
    """What cuda.to_device returns in grading (and a CuPy-like array): its
    shape and dtype, in any layout."""
    from course.fakecupy import DeviceArray

    got = signature_of((DeviceArray(np.zeros((2, 3))), DeviceArray(np.ones(4, "f4"))))
    assert got == "void(float64[:, :], float32[:])"


def test_signature_of_a_cuda_array_interface():
    class Foreign:  # what CuPy and PyTorch arrays offer
        def __init__(self, shape, strides):
            self.__cuda_array_interface__ = {
                "typestr": "<f4",
                "shape": shape,
                "strides": strides,
                "data": (0, False),
                "version": 3,
            }

    got = signature_of(
        (Foreign((2, 3), None), Foreign((2, 3), (4, 8)), Foreign((4,), (8,)))
    )
    assert got == "void(float32[:, ::1], float32[::1, :], float32[:])"


@pytest.mark.parametrize(
    "value, words",
    [([1.0, 2.0], "list"), ({"a": 1}, "dict"), ("text", "str"), (None, "NoneType")],
)
def test_signature_of_refuses_what_no_kernel_takes(value, words):
    with pytest.raises(UnsupportedArgument) as info:
        signature_of((np.zeros(2), value))
    assert "argument 2" in str(info.value) and words in str(info.value)
    assert "NumPy array" in str(info.value)


# --- the caller's side, without a compiler --------------------------------------


def test_missing_compiler_raises_and_names_the_wheels(monkeypatch):
    monkeypatch.setattr(cuda_compile, "_AVAILABLE", None)
    monkeypatch.setattr(
        cuda_compile,
        "_run_worker",
        lambda *a: ([{"unavailable": "libNVVM cannot be found"}], 0, False, ""),
    )
    with pytest.raises(CompilerUnavailable) as info:
        compile_kernels("x = 1\n", {"k": ["void(float64[::1])"]})
    message = str(info.value)
    assert "libNVVM cannot be found" in message
    assert "nvidia-nvvm" in message and "nvidia-cuda-nvrtc" in message
    assert cuda_compile._AVAILABLE is False


def test_a_process_that_stops_midway_gives_each_kernel_a_message(monkeypatch):
    ready = [{"ready": True}, {"kernel": "a", "message": None}]
    monkeypatch.setattr(cuda_compile, "_run_worker", lambda *a: (ready, 0, True, ""))
    got = compile_kernels("", {"a": ["void()"], "b": ["void()"]}, timeout=7)
    assert got["a"] is None and "took longer than 7 s" in got["b"]
    monkeypatch.setattr(cuda_compile, "_run_worker", lambda *a: (ready, -9, False, ""))
    got = compile_kernels("", {"a": ["void()"], "b": ["void()"]})
    assert "exit code -9" in got["b"] and "memory limit" in got["b"]


def test_the_module_imports_nothing_heavy_at_top_level():
    for name in ("cuda_compile", "cuda_signature", "cuda_messages"):
        path = Path(cuda_compile.__file__).with_name(f"{name}.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [
            alias.name if isinstance(node, ast.Import) else node.module
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in (node.names if isinstance(node, ast.Import) else [None])
        ]
        assert not [m for m in top if m and m.split(".")[0] in ("numba", "numpy")]


# --- compiling for real -------------------------------------------------------


def test_the_lesson_launches_its_kernels_with_these_signatures(reference):
    signatures, _, _ = reference
    assert sorted(signatures) == sorted(KERNELS)
    assert signatures["saxpy_kernel"] == [
        "void(float32, float32[::1], float32[::1], float32[::1])",
        "void(float64, float64[::1], float64[::1], float64[::1])",
    ]
    assert signatures["block_sum_kernel"] == ["void(float64[::1], float64[::1])"]
    assert signatures["fused_gradient_kernel"] == [
        "void(float64[:, ::1], float64[::1], float64[::1], float64, float64[::1], "
        "float64[::1])"
    ]


def test_the_reference_kernels_compile(reference):
    signatures, results, timings = reference
    assert results == dict.fromkeys(signatures)
    count = sum(len(s) for s in signatures.values())
    per_compile = sum(timings[k] for k in signatures) / count
    print(
        f"\ncompile process start (imports, a first compile): "
        f"{timings['startup_s']:.2f} s; {count} signatures, {per_compile:.3f} s "
        f"each; in all {timings['total_s']:.2f} s"
    )


def test_the_compile_process_does_not_simulate(bad):
    assert not any("could not be loaded" in (m or "") for m in bad.values()), bad
    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"  # this process still does


def test_device_functions_and_eager_signatures_compile(bad):
    assert bad["uses_device_function"] is None
    assert bad["eager_signature"] is None


def test_np_dot_in_a_kernel_is_refused_readably(bad):
    message = bad["dot_kernel"]
    assert "np.dot is not supported inside a CUDA kernel: write the loop" in message
    assert "`out[0] = np.dot(x, y)`" in message
    assert "numba says: No implementation of function" in message


def test_a_runtime_shared_array_size_is_refused_readably(bad):
    message = bad["runtime_shared"]
    assert "cuda.shared.array needs a size known when the kernel is compiled" in message
    assert "use a constant (a global or a literal)" in message
    assert "`shared = cuda.shared.array(n, np.float64)`" in message


def test_a_shared_python_list_is_refused_readably(bad):
    message = bad["shared_list"]
    assert "a Python list or dict cannot be used inside a kernel" in message
    assert "WEIGHTS" in message


def test_names_that_are_not_kernels_get_a_message(bad):
    assert "put @cuda.jit on the line above `def plain`" in bad["plain"]
    assert "gone is not defined in your answer" in bad["gone"]


def test_the_compile_process_is_confined_like_a_grading_kernel(monkeypatch):
    from autograder.grading.kernel import sandbox

    secret = find_lesson("09_kernels")  # the reference answers
    source = f"""
import os
import resource

from numba import cuda

try:
    open({str(secret)!r}).read()
    READ = "read the reference answers"
except OSError as exc:
    READ = type(exc).__name__
assert {sandbox.abi()} == 0 or READ == "PermissionError", READ
assert resource.getrlimit(resource.RLIMIT_AS)[0] == {256 << 20} * 16
assert os.environ["TMPDIR"] == os.getcwd()
assert not [k for k in os.environ if k.startswith(("SECRET_", "AWS_"))]


@cuda.jit
def fill(x):
    x[0] = 1.0
"""
    monkeypatch.setenv("SECRET_TOKEN", "not for students")
    got = _compile_or_skip(source, {"fill": ["void(float64[::1])"]})
    assert got == {"fill": None}


def test_available_after_a_compile(reference):
    assert cuda_compile.available() is True


# --- the warm compile server ----------------------------------------------------

_FILL = "from numba import cuda\n\n\n@cuda.jit\ndef fill(x):\n    x[0] = 1.0\n"


def test_the_warm_server_compiles_as_a_process_of_its_own_does(bad, monkeypatch):
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
    import sys
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
