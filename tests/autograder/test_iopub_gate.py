"""The IOPub gate: one huge output message never enters the grader's memory."""

from __future__ import annotations

import json
import subprocess
import sys

from autograder.grading.chain.iopub_gate import frame_bytes
from autograder.lessons import REPO_ROOT

# A publisher (standing in for a kernel) sends three stream messages, the middle
# one `size` bytes long; a subscriber reads them through the gate and reports
# what it got and how much its own peak memory grew. Both in fresh processes,
# so that the peak measured is the subscriber's alone.
_PUBLISHER = r"""
import sys, time, zmq
from jupyter_client.session import Session
s = Session(key=b"k" * 32)
pub = zmq.Context().socket(zmq.PUB)
print(pub.bind_to_random_port("tcp://127.0.0.1"), flush=True)
sys.stdin.readline()
time.sleep(0.3)
parent = s.msg_header("execute_request")
"""
_SENDER = (
    _PUBLISHER
    + r"""
for text in ("before\n", "x" * int(sys.argv[1]), "after\n"):
    s.send(pub, "stream", {"name": "stdout", "text": text}, parent=parent,
           ident=b"kernel.1.stream")
sys.stdin.readline()
"""
)
_RECEIVER = r"""
import json, resource, subprocess, sys, time, zmq
from jupyter_client.session import Session
from autograder.grading.chain.iopub_gate import IOPubGate
sender = subprocess.Popen([sys.executable, "-c", sys.argv[2], sys.argv[1]],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
port = int(sender.stdout.readline())
session = Session(key=b"k" * 32)
gate = IOPubGate(port, session, limit=10_000_000)
sub = zmq.Context().socket(zmq.SUB)
sub.setsockopt(zmq.SUBSCRIBE, b"")
sub.connect(f"tcp://127.0.0.1:{gate.port}")
time.sleep(0.3)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sender.stdin.write("go\n"); sender.stdin.flush()
got = []
for _ in range(3):
    _, frames = session.feed_identities(sub.recv_multipart())
    msg = session.deserialize(frames)  # checks the signature
    got.append([msg["content"]["name"], msg["content"]["text"][:60],
                msg["parent_header"]["msg_id"]])
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
import socket
nodelay = [s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in gate._sockets]
sender.stdin.write("bye\n"); sender.stdin.flush(); sender.wait()
gate.close()
print(json.dumps({"got": got, "grew_kib": grew, "dropped": gate.dropped,
                  "nodelay": nodelay, "malformed": gate.malformed}))
"""


def _through_gate(size: int) -> dict:
    return _through_gate_with(_SENDER, size)


def _through_gate_with(sender: str, size: int = 0) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _RECEIVER, str(size), sender],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_100_mb_message_is_skipped_as_it_streams_and_replaced_by_a_notice():
    out = _through_gate(100_000_000)
    texts = [text for _, text, _ in out["got"]]
    assert texts[0] == "before\n" and texts[2] == "after\n"
    assert out["got"][1][0] == "stderr"
    assert texts[1].startswith("[an output of 100,000,")
    assert "was left out" in texts[1]
    # The notice keeps the parent, so it lands in the cell that printed.
    assert len({parent for _, _, parent in out["got"]}) == 1
    assert out["dropped"] and out["dropped"][0] > 100_000_000
    assert out["grew_kib"] < 50 * 1024, f"grew {out['grew_kib']} KiB"


def test_messages_under_the_limit_pass_unchanged():
    out = _through_gate(1_000_000)
    assert [text[:3] for _, text, _ in out["got"]] == ["bef", "xxx", "aft"]
    assert out["dropped"] == []
    # both sides send each frame at once (no 40 ms wait for a delayed ACK)
    assert len(out["nodelay"]) == 2 and all(out["nodelay"]), out["nodelay"]


def test_frames_are_written_as_zmtp_3():
    assert frame_bytes(b"ab", more=True) == b"\x01\x02ab"
    assert frame_bytes(b"x" * 256, more=False)[:9] == b"\x02" + (256).to_bytes(8, "big")
    assert frame_bytes(b"", more=False, command=True) == b"\x04\x00"


def test_a_message_of_too_many_frames_is_skipped_and_the_next_one_arrives():
    import time

    import zmq
    from jupyter_client.session import Session

    from autograder.grading.chain.iopub_gate import IOPubGate

    context = zmq.Context()
    pub = context.socket(zmq.PUB)
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    session = Session(key=b"k" * 32)
    gate = IOPubGate(port, session, limit=10_000_000)
    sub = context.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(f"tcp://127.0.0.1:{gate.port}")
    try:
        time.sleep(0.5)
        pub.send_multipart([b"x"] * 5000)  # tiny frames, far too many
        session.send(pub, "stream", {"name": "stdout", "text": "after\n"})
        assert sub.poll(5000), "the message after the skipped one never came"
        _, frames = session.feed_identities(sub.recv_multipart())
        assert session.deserialize(frames)["content"]["text"] == "after\n"
        assert gate.dropped == [5000]
    finally:
        gate.close()
        sub.close(0)
        pub.close(0)
        context.term()


def test_only_a_zmtp3_null_greeting_is_relayed():
    from autograder.grading.chain.iopub_gate import greeting_ok

    good = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x01" + b"NULL".ljust(20, b"\0")
    good += b"\0" + b"\0" * 31
    assert len(good) == 64 and greeting_ok(good)
    assert all(greeting_ok(good[:n]) for n in range(65))  # any prefix, as it arrives
    zmtp2 = good[:10] + b"\x01" + good[11:]
    zmtp1 = b"\x01\x00" + good[2:]
    curve = good[:12] + b"CURVE".ljust(20, b"\0") + good[32:]
    assert not greeting_ok(zmtp2) and not greeting_ok(zmtp1) and not greeting_ok(curve)
    assert not greeting_ok(zmtp2[:11])  # refused before the rest arrives


def test_the_notice_stays_small_whatever_the_parent_header_holds():
    from jupyter_client.session import Session

    from autograder.grading.chain.iopub_gate import DELIMITER, IOPubGate

    gate = IOPubGate(1, Session(key=b"k"), limit=1000)  # no kernel: _notice only
    try:
        for parent in (
            b'{"msg_id": [' + b"[]," * 100_000 + b"[]]}",
            b"5",
            b"[" * 5000 + b"]" * 5000,
            b'{"msg_id": "abc", "junk": "' + b"x" * 50_000 + b'"}',
        ):
            frames = [b"kernel.1.stream", DELIMITER, b"0" * 64, b"{}", parent]
            notice = gate._notice(frames, 10**9)
            assert notice is not None and len(notice) < 2000
        frames = [b"t", DELIMITER, b"0" * 64, b"{}", b'{"msg_id": "abc"}']
        assert b'"msg_id": "abc"' in gate._notice(frames, 10**9)
    finally:
        gate.close()


#: A kernel whose send broke off mid-message (a process limit used up by the
#: notebook stopped pyzmq between frames): the next message's frames are
#: appended to the broken one, so one multipart message holds both.
_BROKEN_SENDER = (
    _PUBLISHER
    + r"""
def send(text):
    s.send(pub, "stream", {"name": "stdout", "text": text}, parent=parent,
           ident=b"kernel.1.stream")
send("before\n")
broken = s.serialize(s.msg("display_data", {"data": {}}, parent=parent),
                     ident=[b"kernel.1.display_data"])
for frame in broken[:-1]:  # the content frame never went out
    pub.send(frame, zmq.SNDMORE)
send("middle\n")
send("after\n")
sys.stdin.readline()
"""
)


def test_a_message_broken_off_mid_send_is_replaced_by_a_notice():
    out = _through_gate_with(_BROKEN_SENDER)
    texts = [text for _, text, _ in out["got"]]
    assert texts[0] == "before\n" and texts[2] == "after\n"
    assert texts[1].startswith("[a malformed output message from the kernel")
    assert out["got"][1][0] == "stderr" and out["malformed"] == 1
    assert len({parent for _, _, parent in out["got"]}) == 1
