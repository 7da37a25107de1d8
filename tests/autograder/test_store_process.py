"""The simulated GPU's store in a process of the grader's (referee/store.py)."""

from __future__ import annotations

import os
import socket

import numpy as np
import pytest

from autograder.grading.referee.store import StoreProcess
from course.fakecupy import DeviceArray, TransferCounter
from course.simlink import SocketConnection, decode, encode


def test_a_store_in_another_process_answers_as_this_one():
    process = StoreProcess()
    try:
        kernel = SocketConnection(socket.socket(fileno=_dup(process.kernel_fd())))
        process.started()
        x = DeviceArray._from_ref(
            decode(kernel.request(["upload", "up", "", encode(np.eye(3))]), None),
            kernel,
        )
        assert (x @ x).sum().item() == 3.0
        with pytest.raises(RuntimeError, match="the grader's"):
            kernel.request(["fetch", x._key])
        data = decode(process.control.request(["fetch", x._key]), None)
        np.testing.assert_array_equal(data, np.eye(3))
        counts = process.totals()["counts"]
        assert counts["upload"] == 1 and counts["download"] == 1
        assert counts["launch"] == 2
        window = TransferCounter(process.control)
        with window:
            x.get()
        assert window.downloads == 1  # read through the control channel
    finally:
        process.close()


def _dup(fd: int) -> int:
    return os.dup(fd)


def test_the_store_runs_apart_from_the_grader_and_the_kernel():
    """Its own PID namespace (PID 1 there), and, under a root grader, a user
    that is neither root nor the kernel's nobody."""
    from autograder.grading.kernel.nobody import NOBODY
    from autograder.grading.referee.store import STORE_USER

    process = StoreProcess()
    try:
        where = process.totals()["process"]
    finally:
        process.close()
    ours = os.readlink("/proc/self/ns/pid")
    if not where["pid_namespace"] or where["pid_namespace"] == ours:
        pytest.skip("this machine refuses PID namespaces")
    assert where["pid"] == 1
    if os.geteuid() == 0:
        assert where["uid"] == STORE_USER != NOBODY
    else:
        assert where["uid"] == os.getuid()


_SAXPY = """from numba import cuda
@cuda.jit
def saxpy(a, x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i]
"""
_ESCAPES = """from numba import cuda
import os
@cuda.jit
def escapes(out):
    out[0] = len(os.listdir("/proc/1/fd"))
"""


def test_a_kernel_launch_runs_in_a_child_of_the_store_and_is_counted_there():
    """The launch's arrays go up and come back (counted by the store); the
    kernel's source runs in the store's confined child; a source that does
    what no CUDA kernel does (import os, name a dunder) is refused unrun."""
    process = StoreProcess(kernels=True)
    try:
        kernel = SocketConnection(socket.socket(fileno=_dup(process.kernel_fd())))
        process.started()
        x = np.arange(5, dtype=np.float64)
        nodes = [["value", 3.0], ["host", encode(x)], ["host", encode(np.zeros(5))]]
        reply = kernel.request(["launch", "saxpy", _SAXPY, [2], [4], 0, nodes])
        assert reply[0] == "done"
        np.testing.assert_array_equal(decode(reply[1][2], None), 3 * x)
        counts = process.totals()["counts"]
        assert counts["launch"] == 1 and counts["upload"] == counts["download"] == 2
        assert counts["upload_bytes"] == 80
        nodes = [["host", encode(np.zeros(1))]]
        reply = kernel.request(["launch", "escapes", _ESCAPES, [1], [1], 0, nodes])
        assert reply[:2] == ["raised", "TypeError"] and "imports os" in reply[2]
        saxpy = _SAXPY.replace("out[i] = a * x[i]", "out[i] = a.__class__")
        reply = kernel.request(["launch", "saxpy", saxpy, [1], [1], 0, nodes])
        assert reply[:2] == ["raised", "TypeError"] and "__class__" in reply[2]
        assert process.totals()["counts"]["launch"] == 1  # neither ran
    finally:
        process.close()
