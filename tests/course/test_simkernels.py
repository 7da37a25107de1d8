"""course.simkernels: numba-cuda launches on the simulated GPU's store."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import numpy as np
import pytest

if "numba.cuda" not in sys.modules:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba.cuda is imported
cuda = pytest.importorskip("numba.cuda")
if not pytest.importorskip("numba").config.ENABLE_CUDASIM:
    pytest.skip(
        "numba.cuda was imported without the simulator", allow_module_level=True
    )

from course.kernellaunch import launch_on_store  # noqa: E402
from course.racecheck import KernelRaceError  # noqa: E402
from course.simlink import LocalConnection  # noqa: E402

SAXPY = """from numba import cuda
@cuda.jit
def saxpy(a, x, y, out):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        out[i] = a * x[i] + y[i]
"""
RACY = """from numba import cuda
import numpy as np
@cuda.jit
def racy(x, out):
    shared = cuda.shared.array(4, np.float64)
    t = cuda.threadIdx.x
    shared[t] = x[t]
    if t == 0:
        out[0] = shared[0] + shared[1] + shared[2] + shared[3]
"""


class _Configured:
    """A launch as ``kernel[grid, block]`` leaves it: what the hook reads."""

    def __init__(self, name: str, grid: int, block: int) -> None:
        self.fn = SimpleNamespace(__name__=name)
        self.grid_dim, self.block_dim = (grid, 1, 1), (block, 1, 1)


def test_a_launch_on_host_arrays_counts_numba_s_copies_both_ways():
    link = LocalConnection()
    x, y = np.arange(10, dtype=np.float32), np.ones(10, dtype=np.float32)
    out = np.zeros(10, dtype=np.float32)
    device = cuda.to_device(np.full(10, 7.0, dtype=np.float32))
    launch_on_store(_Configured("saxpy", 2, 4), (np.float32(2), x, y, out), SAXPY, link)
    np.testing.assert_allclose(out, 2 * x + 1)
    launch_on_store(
        _Configured("saxpy", 1, 4), (np.float32(1), x, y, device), SAXPY, link
    )
    np.testing.assert_allclose(device.copy_to_host(), x + 1)
    counts = link.store.counts
    assert counts["launch"] == 2 and counts["kernel"] == 2
    # three host arrays, then three: numba's own device array is not one the
    # store holds, so it is host data to the store and costs its copies
    assert counts["upload"] == 6 and counts["download"] == 6
    assert counts["upload_bytes"] == counts["download_bytes"] == 6 * 40
    assert counts["sync"] == 2  # the copies back wait for each kernel


def test_a_label_does_not_make_a_host_array_device_data():
    """The store reads what each argument is from the argument itself."""
    link = LocalConnection()
    x, y = np.arange(4, dtype=np.float64), np.ones(4, dtype=np.float64)
    out = np.zeros(4)
    from course.simlink import encode

    nodes = [["value", encode(np.float64(2.0))]] + [
        ["device", encode(a)] for a in (x, y, out)
    ]
    reply = link.request(["launch", "saxpy", SAXPY, [1], [4], 0, nodes, ""])
    assert reply[0] == "done"
    counts = link.store.counts
    assert counts["upload"] == 3 and counts["download"] == 3 and counts["sync"] == 1


EMPTY = """from numba import cuda
@cuda.jit
def saxpy(a, x, y, out):
    cuda.syncthreads()
"""


def test_the_store_keeps_each_kernel_it_ran_and_what_each_launch_wrote():
    link = LocalConnection()
    mark = link.request(["mark"])
    x = np.arange(5, dtype=np.float64)
    out = 2 * x + 1  # the right answer, put there by the host
    launch_on_store(_Configured("saxpy", 1, 8), (2.0, x, np.ones(5), out), EMPTY, link)
    launch_on_store(_Configured("saxpy", 1, 4), (2.0, x, np.ones(5), out), SAXPY, link)
    found = link.request(["launched", mark, True])
    assert [entry[0] for entry in found] == ["saxpy", "saxpy"]
    assert [entry[2] for entry in found] == [EMPTY, SAXPY]
    from course.simlink import decode

    empty, done = (decode(entry[3][3], None) for entry in found)
    assert np.isnan(empty).all()  # the empty kernel wrote nothing
    np.testing.assert_allclose(done, 2 * x + 1)
    assert found[0][3][0] is None  # a number: no output
    assert link.request(["launched", link.request(["mark"])]) == []


def test_a_race_raises_the_checker_s_error_and_counts_a_sync():
    link = LocalConnection()
    out = np.zeros(1)
    with pytest.raises(KernelRaceError, match="syncthreads"):
        launch_on_store(_Configured("racy", 1, 4), (np.ones(4), out), RACY, link)
    assert out[0] == 0.0  # nothing came back
    assert link.store.counts["sync"] == 1 and link.store.counts["launch"] == 0


def test_a_kernel_whose_source_is_not_a_kernel_is_refused_by_name():
    link = LocalConnection()
    with pytest.raises(TypeError, match="not a @cuda.jit kernel"):
        launch_on_store(_Configured("k", 1, 1), (np.ones(1),), "k = 1\n", link)


@cuda.jit
def _scale(x, out):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        out[i] = 2.0 * x[i]


def test_simulated_gpu_counts_numba_s_implicit_copies_and_keeps_device_arrays():
    from course.cudasim import simulated_gpu
    from course.transfers import TransferCounter

    x, out = np.arange(8.0), np.zeros(8)
    with simulated_gpu(), TransferCounter() as host_arrays:
        for _ in range(3):
            _scale[2, 4](x, out)
    np.testing.assert_array_equal(out, 2 * x)
    assert (host_arrays.uploads, host_arrays.downloads) == (6, 6)
    with simulated_gpu(), TransferCounter() as device_arrays:
        d_x, d_out = cuda.to_device(x), cuda.device_array_like(x)
        for _ in range(3):
            _scale[2, 4](d_x, d_out)
        back = d_out.copy_to_host()
    np.testing.assert_array_equal(back, 2 * x)
    assert (device_arrays.uploads, device_arrays.downloads) == (1, 1)
    assert cuda.to_device.__module__.startswith("numba")  # put back


def test_simulated_gpu_runs_a_kernel_whose_source_cannot_be_read():
    """A kernel defined by exec (a lesson run as a script's cells): the store
    in this process runs the kernel itself."""
    from course.cudasim import simulated_gpu

    namespace: dict = {}
    exec(SAXPY, namespace)  # noqa: S102 - a kernel with no file behind it
    x, out = np.arange(4, dtype=np.float32), np.zeros(4, dtype=np.float32)
    with simulated_gpu():
        namespace["saxpy"][1, 4](np.float32(3), x, x, out)
    np.testing.assert_array_equal(out, 4 * x)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("import os\n", "imports os"),
        ("print('hi')\n", "runs a Expr"),
        ("x = print('hi')\n", "calls a function at the top level"),
        ("import numpy as np\ny = np.lib.npyio.os\n", "reaches os"),
        ("@(lambda f: f)\ndef g():\n    pass\n", "decorates a function"),
    ],
)
def test_a_kernel_module_that_does_what_no_kernel_does_is_refused(change, words):
    from course.kernelsource import refuse_unsafe

    refuse_unsafe(SAXPY)  # a kernel: fine
    refuse_unsafe(RACY)
    with pytest.raises(TypeError, match=words):
        refuse_unsafe(SAXPY + change)


SUM_OF_TUPLE = """from numba import cuda
@cuda.jit
def total(arrays, out):
    x, y = arrays
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]
"""


def test_host_arrays_in_a_tuple_cost_their_copies():
    from course.simlink import encode

    link = LocalConnection()
    x, y, out = np.ones(4), np.ones(4), np.zeros(4)
    nodes = [["value", encode((x, y))], ["host", encode(out)]]
    reply = link.request(["launch", "total", SUM_OF_TUPLE, [1], [4], 0, nodes, ""])
    assert reply[0] == "done"
    counts = link.store.counts
    assert counts["upload"] == 3 and counts["download"] == 3 and counts["sync"] == 1


def test_an_index_past_the_end_ends_the_traceback_at_the_students_kernel(
    tmp_path,
):
    """As IPython shows it to a student: the kernel's error, what to do about
    it, and the student's own frames; none of the course's."""
    import subprocess

    script = tmp_path / "oob.py"
    script.write_text(
        "from course.cudasim import choose_target, simulated_gpu\n"
        "choose_target()\n"
        "import numpy as np\n"
        "from numba import cuda\n"
        "@cuda.jit\n"
        "def past_the_end(out):\n"
        "    out[cuda.grid(1) + 1] = 1.0\n"
        "with simulated_gpu():\n"
        "    past_the_end[1, 8](cuda.to_device(np.zeros(8)))\n",
        encoding="utf-8",
    )
    shown = subprocess.run(
        [sys.executable, "-m", "IPython", "--colors=NoColor", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    text = shown.stdout + shown.stderr
    assert "IndexError: tid=[7, 0, 0]" in text, text
    assert "kernel past_the_end: a thread read or wrote past an array's end" in text
    assert "def past_the_end(out):" in text  # the last frame: the student's
    assert "simkernels" not in text and "_raise_in" not in text, text
