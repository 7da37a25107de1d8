"""autograder.grading.cuda_compile: kernels compiled to PTX without a GPU, and
the messages of what CUDA refuses (signatures: test_cuda_signature; the warm
server: test_compile_server).

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


from autograder.grading import cuda_compile  # noqa: E402
from autograder.grading.cuda_compile import (  # noqa: E402
    CompilerUnavailable,
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
