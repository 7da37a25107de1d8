"""The referee's channel: a frame over the limit is skipped unread, and the
channel goes on."""

from __future__ import annotations

import socket
import struct
import threading

import pytest

from autograder.grading.referee import wire


def test_a_frame_over_the_limit_is_skipped_unread_and_the_next_one_arrives():
    ours, theirs = socket.socketpair()
    size = wire.MAX_FRAME + 1
    body = b"\xc1" * size  # never valid msgpack: decoding it would fail

    def send() -> None:
        theirs.sendall(struct.pack(">I", size) + body)
        wire.Channel(theirs).send(["hello", 1])

    sender = threading.Thread(target=send)
    sender.start()
    channel = wire.Channel(ours)
    with pytest.raises(wire.FrameTooLarge, match="MiB"):
        channel.recv()
    assert channel.recv() == ["hello", 1]
    sender.join()
    ours.close()
    theirs.close()


def test_a_sender_refuses_a_frame_over_the_limit():
    ours, theirs = socket.socketpair()
    with pytest.raises(wire.FrameTooLarge):
        wire.Channel(ours).send(b"x" * (wire.MAX_FRAME + 1))
    ours.close()
    theirs.close()


def test_a_raised_error_s_traceback_leaves_out_frames_that_hide_themselves():
    """As IPython shows it: the course's own frames between the student's
    call and the student's kernel (``__tracebackhide__``) are not sent."""
    from autograder.grading.referee.ops import error_info

    def students_kernel():
        raise IndexError("index 8 is out of bounds")

    def courses_launcher():
        __tracebackhide__ = True  # noqa: F841 - read by the traceback's reader
        students_kernel()

    try:
        courses_launcher()
    except IndexError as exc:
        info = error_info(exc)
    assert "in students_kernel" in info["traceback"]
    assert "in courses_launcher" not in info["traceback"]
    assert info["traceback"].rstrip().endswith("IndexError: index 8 is out of bounds")
