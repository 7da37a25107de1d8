"""The one fork server: a child per request with the descriptors it was sent,
no end of the server's channel and an empty stdin; a refused request forks
nothing; a waiting server reports the exit and ends what a child left."""

from __future__ import annotations

import json
import os

import pytest

from autograder.grading import forkserver
from autograder.lessons import REPO_ROOT

ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def _ask(server: forkserver.ForkServer, request: dict) -> tuple[int, dict]:
    read, write = os.pipe()
    try:
        pid = server.fork(request, [write])
    finally:
        os.close(write)
    with os.fdopen(read) as pipe:
        return pid, json.loads(pipe.read())


def test_each_child_gets_its_request_and_descriptors_and_nothing_of_the_server():
    server = forkserver.ForkServer("tests.forkserver_echo", env=ENV, ready=60)
    try:
        assert server.first == {"ready": server.process.pid}
        pid, seen = _ask(server, {"text": "hello"})
        assert pid > 0 and seen == {"text": "hello", "stdin": "", "sockets": []}
        with pytest.raises(RuntimeError, match="no descriptor"):
            server.fork({"text": "x"})  # refused before any fork
        assert _ask(server, {"text": "again"})[1]["text"] == "again"
    finally:
        server.close()
    assert server.process.returncode == 0


def test_a_waiting_server_reports_the_exit_and_ends_what_was_left():
    server = forkserver.ForkServer("tests.forkserver_echo", ["wait"], ENV, ready=60)
    try:
        _, seen = _ask(server, {"text": "t", "code": 3, "leave": True})
        assert seen["text"] == "t"
        assert forkserver.receive(server.channel, 30) == {"exit": 3}
        from autograder.grading.kernel.limits import descendants

        assert descendants(server.process.pid) == []  # the sleeper is gone
    finally:
        server.close()


def test_a_server_that_cannot_start_says_so():
    with pytest.raises(RuntimeError, match="did not start"):
        forkserver.ForkServer("tests.no_such_module", env=ENV, quiet=True, ready=30)
