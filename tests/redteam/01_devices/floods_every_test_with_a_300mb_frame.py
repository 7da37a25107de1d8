"""Replaces the agent's channel so that, at the start of every test after
Task 2's answer, a 300 MB frame goes to the referee before the greeting.

The referee took a frame over its limit for a broken channel: the kernel was
replaced, the cells replayed (the replacement again), and every later test
was lost to the same frame. A frame over the limit is now skipped as it
arrives, never decoded; one that comes before a test's greeting answers no
request, so no test fails.
"""
# score: 12
# review: yes
# %% 01-usable-memory
# <reference>
import struct

import autograder.grading.referee.wire as _wire

_wire.MAX_FRAME = 1 << 31  # this process's check only: the referee keeps its own
_send = _wire.Channel.send
_SIZE = 300_000_000


def _flooding_send(self, message):
    if isinstance(message, list) and message and message[0] == "hello":
        self.sock.sendall(struct.pack(">I", _SIZE))
        chunk = bytes(1 << 20)
        for _ in range(_SIZE >> 20):
            self.sock.sendall(chunk)
        self.sock.sendall(bytes(_SIZE - ((_SIZE >> 20) << 20)))
    return _send(self, message)


_wire.Channel.send = _flooding_send
