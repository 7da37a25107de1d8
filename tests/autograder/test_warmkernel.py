"""Warm kernels: forked from a preloaded server, yet each one fresh and ordinary."""

from __future__ import annotations

import os

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from autograder.grading.kernel import warmkernel

pytestmark = pytest.mark.skipif(
    not warmkernel.supported(), reason="warm kernels fork: Linux only"
)

PROBE = """\
import os, sys
preloaded = "torch" in sys.modules
import numpy as np
print(preloaded, os.getpid(), os.getcwd(),
      os.environ.get("OMP_NUM_THREADS") + "/" + str(os.environ.get("COURSE_PROBE")),
      np.random.randint(0, 2**31), repr(sys.path).replace(" ", ""))
"""

PLOT = """\
import matplotlib.pyplot as plt
plt.plot([1, 2, 3])
"""


def _run(cells, manager, tmp_path, timeout=30):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        kernel_manager_class=manager,
        resources={"metadata": {"path": str(tmp_path)}},
        interrupt_on_timeout=True,
    )
    client.execute()
    return nb


@pytest.fixture()
def warm(monkeypatch):
    monkeypatch.setenv("COURSE_PROBE", "graders-own")  # not for grading kernels
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # a job setting kernels must get
    yield warmkernel.manager_class()  # warm, not confined: its defaults
    if warmkernel._SERVER is not None:
        warmkernel._SERVER.close()
        warmkernel._SERVER = None


def _probe(nb):
    text = nb.cells[0].outputs[0]["text"].split()
    return {
        "preloaded": text[0] == "True",
        "pid": int(text[1]),
        "cwd": text[2],
        "env": text[3],
        "seed": int(text[4]),
        "path": text[5],
    }


@pytest.mark.slow
def test_warm_kernels_are_fresh_processes_with_the_job_settings(warm, tmp_path):
    before = dict(warmkernel.LAUNCHED)
    first = _probe(_run([PROBE], warm, tmp_path))
    second = _probe(_run([PROBE], warm, tmp_path))
    assert warmkernel.LAUNCHED["warm"] == before["warm"] + 2
    assert warmkernel.LAUNCHED["cold"] == before["cold"]
    assert first["preloaded"] and second["preloaded"]  # forked from the server
    assert first["pid"] != second["pid"] != os.getpid()
    assert first["cwd"] == second["cwd"] == str(tmp_path)
    assert first["env"] == "3/None"  # the job's thread count, not other variables
    assert first["seed"] != second["seed"]  # NumPy reseeded like a cold start
    from jupyter_client.manager import AsyncKernelManager

    cold = _probe(_run([PROBE], AsyncKernelManager, tmp_path))
    assert not cold["preloaded"]
    assert first["path"] == cold["path"]  # same import path as a cold kernel


@pytest.mark.slow
def test_a_caller_that_sets_the_log_level_itself_still_gets_a_warm_kernel(
    warm, tmp_path
):
    """The manager adds ``--IPKernelApp.log_level=ERROR``; given twice, the
    option stopped a forked kernel before its first reply."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    before = dict(warmkernel.LAUNCHED)
    NotebookClient(
        nb,
        kernel_name="python3",
        kernel_manager_class=warm,
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    assert nb.cells[0].outputs[0]["text"] == "42\n"
    assert warmkernel.LAUNCHED["warm"] == before["warm"] + 1


@pytest.mark.slow
def test_plots_and_errors_look_as_in_a_cold_kernel(warm, tmp_path, monkeypatch):
    from jupyter_client.manager import AsyncKernelManager

    monkeypatch.delenv(
        "MPLBACKEND", raising=False
    )  # the inline backend, as in a real class

    cells = [PLOT, "1 / 0", "print('after')"]
    hot = _run(cells, warm, tmp_path)
    cold = _run(cells, AsyncKernelManager, tmp_path)
    for a, b in zip(hot.cells, cold.cells, strict=True):
        kinds = [(o["output_type"], sorted(o.get("data", {}))) for o in a.outputs]
        assert kinds == [
            (o["output_type"], sorted(o.get("data", {}))) for o in b.outputs
        ]
    assert "image/png" in str(hot.cells[0].outputs)
    assert hot.cells[1].outputs[0]["ename"] == "ZeroDivisionError"


@pytest.mark.slow
def test_timeout_interrupts_a_warm_kernel_and_it_goes_on(warm, tmp_path):
    cells = ["while True:\n    pass", "print('still here')"]
    nb = _run(cells, warm, tmp_path, timeout=3)
    assert nb.cells[0].outputs[-1]["output_type"] == "error"
    assert "still here" in nb.cells[1].outputs[0]["text"]


@pytest.mark.slow
def test_a_kernel_that_exits_is_seen_dead(warm, tmp_path):
    with pytest.raises(DeadKernelError):
        _run(["import os\nos._exit(3)", "print('never')"], warm, tmp_path)


def test_other_pythons_and_environments_fall_back_or_restart(warm, monkeypatch):
    assert not warmkernel.forkable(["/usr/bin/python3", "-m", "ipykernel_launcher"])
    assert warmkernel.forkable(
        [warmkernel.sys.executable, "-m", "ipykernel_launcher", "-f", "x.json"]
    )
    server = warmkernel.server_for(dict(os.environ))
    assert warmkernel.server_for(dict(os.environ, JPY_SESSION_NAME="x")) is server
    other = warmkernel.server_for(dict(os.environ, OMP_NUM_THREADS="7"))
    assert other is not server and not server.alive()


def test_grading_leaves_a_plain_nbgrader_execute_untouched():
    """Kernel settings are configuration: nothing of nbgrader is patched, so
    formgrader's autograde button in the same process launches stock kernels."""
    import nbgrader.preprocessors.execute as execute
    from jupyter_client.manager import AsyncKernelManager
    from nbgrader.preprocessors import Execute

    from autograder.grading.chain.execute import GradingExecute

    def manager(executor):
        executor.kernel_name = "python3"
        return executor.create_kernel_manager()

    km = manager(GradingExecute(warm=True, confine=False))
    assert isinstance(km, warmkernel.manager_class()) and km.warm and not km.confine
    assert not manager(GradingExecute(warm=False, confine=False)).warm
    assert execute.AsyncKernelManager is AsyncKernelManager
    plain = Execute()
    assert plain.kernel_manager_class is AsyncKernelManager
    plain.kernel_name = "python3"
    assert type(plain.create_kernel_manager()) is AsyncKernelManager


def test_the_quick_client_speaks_jupyter_clients_words_for_a_dead_kernel():
    """The worker retries a start whose kernel died before its first reply by
    matching jupyter_client's message: the quick client must say the same."""
    import inspect

    from jupyter_client.client import KernelClient

    from autograder.grading.kernel.forked import KERNEL_START_FAILED

    assert KERNEL_START_FAILED in inspect.getsource(KernelClient._async_wait_for_ready)


def test_the_client_reaches_a_new_kernel_without_zeromqs_100_ms_retry():
    """The client connects before a new kernel listens; each retry ZeroMQ waits
    for (100 ms by default) was half a kernel start."""
    import zmq

    from autograder.grading.kernel.forked import RECONNECT_MS, ready_client

    client = ready_client()()
    socket = client.context.socket(zmq.DEALER)
    try:
        assert socket.getsockopt(zmq.RECONNECT_IVL) == RECONNECT_MS < 100
    finally:
        socket.close()
        client.context.term()


def _as_a_worker(monkeypatch):
    """The environment as a grading worker has it: a job's thread settings
    (3 each), and this Python on PATH (put there by the course config)."""
    from autograder.classgrade.worker import THREAD_VARIABLES
    from autograder.config.settings import python_on_path

    for variable in THREAD_VARIABLES:
        monkeypatch.setenv(variable, "3")
    monkeypatch.setenv("PATH", python_on_path(os.environ.get("PATH", "")))


SHARED_PROBE = """\
import os, resource
block = open("/proc/self/environ", "rb").read()
print(os.getppid(), resource.getrlimit(resource.RLIMIT_FSIZE)[0], b"s3cret" in block)
"""


@pytest.mark.slow
def test_a_batchs_shared_server_forks_with_the_workers_limits_and_no_secret(
    warm, tmp_path, monkeypatch
):
    """One server for all of a batch's workers, started by the main process:
    its environment block holds no grader secret, and each kernel gets the
    asking worker's resource limits (which a worker's own server passed on by
    inheritance)."""
    import resource

    from autograder.classgrade.batch import shared_server

    monkeypatch.setenv("GRADER_TOKEN", "s3cret")
    _as_a_worker(monkeypatch)
    shared = shared_server(3)
    assert shared is not None
    monkeypatch.setattr(warmkernel, "SHARED", shared.handle())
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    before = dict(warmkernel.LAUNCHED)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (12345678, hard))
        outputs = [_run([SHARED_PROBE], warm, tmp_path).cells[0].outputs for _ in "ab"]
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        shared.close()
    assert warmkernel.LAUNCHED["shared"] == before["shared"] + 2
    assert warmkernel._SERVER is None  # no server of this process's own
    for out in outputs:
        ppid, fsize, leaked = out[0]["text"].split()
        assert int(ppid) == shared.process.pid
        assert (int(fsize), leaked) == (12345678, "False")
    assert shared.process.poll() is not None  # it ended with the batch


@pytest.mark.slow
def test_a_worker_whose_shared_server_is_gone_starts_its_own(
    warm, tmp_path, monkeypatch
):
    from autograder.classgrade.batch import shared_server

    _as_a_worker(monkeypatch)
    shared = shared_server(3)
    handle = shared.handle()
    shared.close()
    warmkernel.SHARED = handle
    try:
        before = dict(warmkernel.LAUNCHED)
        first = _run(["print(6 * 7)"], warm, tmp_path)
        second = _run(["print(6 * 7)"], warm, tmp_path)
    finally:
        warmkernel.SHARED = None
    assert (
        first.cells[0].outputs[0]["text"]
        == "42\n"
        == second.cells[0].outputs[0]["text"]
    )
    assert not handle.alive()
    # the first kernel started cold when the shared server did not answer;
    # the next one came from a server of the worker's own
    assert warmkernel.LAUNCHED["cold"] == before["cold"] + 1
    assert warmkernel.LAUNCHED["warm"] == before["warm"] + 1
    assert warmkernel.LAUNCHED["shared"] == before["shared"]
