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
