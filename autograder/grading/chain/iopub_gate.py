"""A gate on a kernel's output channel: no message over a size ever reaches us.

A kernel sends its output (prints, plots, results) on its IOPub socket. The
grader's client would read each message whole, so one ``print("x" * 300e6)``
in an answer cell would put 300 MB (and more as JSON) into the grader's memory
before any limit could look at it. ZeroMQ's own ``MAXMSGSIZE`` cannot help: on a
multipart message it breaks the connection mid-message, which trips an assertion
inside libzmq.

So the client does not connect to the kernel. It connects to this gate, a small
TCP relay in a thread of the grader that speaks just enough ZMTP 3 (the ZeroMQ
wire protocol: a 64-byte greeting, then frames of ``flags, size, body``) to
measure each message as its frames arrive:

- a message up to ``limit`` bytes is passed on unchanged, in order, if it
  carries the session's signature; one that does not (its frames mixed with
  another message's, when a kernel's send broke off mid-message, say after
  the notebook used up its process limit) is replaced by a notice, so the
  client never fails on a malformed message;
- a larger one is never held: its frames are skipped as they stream past (a
  fixed-size buffer), and in its place the client receives a ``stream`` message
  on stderr, signed with the session's key, with the same parent (so it lands
  in the right cell): ``[an output of N bytes was left out: the limit is L]``.

Memory per kernel stays near ``limit``, whatever the kernel sends: a message
of more than 1,024 frames is skipped the same way; a ZMTP command larger than
64 KiB (none is) or a greeting other than ZMTP 3 with the NULL mechanism ends
the connection (the client would read other framing than the gate checks); the
notice keeps only a few short fields of the dropped message's parent header;
and only one connection is relayed at a time. The other direction (the
client's subscription) is passed through as is.
"""

from __future__ import annotations

import hmac
import json
import socket
import struct
import threading
import time
from typing import Any

DELIMITER = b"<IDS|MSG>"
_GREETING = 64
_CHUNK = 1 << 16
_MORE, _LONG, _COMMAND = 0x01, 0x02, 0x04
_MAX_COMMAND = 1 << 16  # bytes: a READY or PING command is far smaller
_MAX_FRAMES = 1024  # per message: a Jupyter message has a dozen at most
_MAX_PARENT = 1 << 16  # bytes of a dropped message's parent header read back
_PARENT_KEYS = ("msg_id", "msg_type", "session", "username", "date", "version")


MALFORMED = (
    "[a malformed output message from the kernel was left out: its frames did not "
    "carry the session's signature (a process of the notebook's may have broken "
    "the kernel's sending, for example by using up the process limit)]"
)


class _Closed(Exception):
    pass


def _read_exact(sock: socket.socket, n: int) -> bytes:
    parts, left = [], n
    while left:
        chunk = sock.recv(min(left, _CHUNK))
        if not chunk:
            raise _Closed
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _skip(sock: socket.socket, n: int) -> None:
    left = n
    while left:
        chunk = sock.recv(min(left, _CHUNK))
        if not chunk:
            raise _Closed
        left -= len(chunk)


def greeting_ok(greeting: bytes) -> bool:
    """Whether ``greeting`` (all or the start of the 64 bytes) is a ZMTP 3 greeting
    with the NULL mechanism: the only framing the gate parses. Any other (ZMTP
    1.0 or 2.0, another mechanism) would make the client read frames where the
    gate does not, so it is refused before the client sees a byte of it."""
    g = greeting
    if (len(g) > 0 and g[0] != 0xFF) or (len(g) > 9 and g[9] != 0x7F):
        return False
    if len(g) > 10 and g[10] < 3:
        return False
    mechanism = b"NULL".ljust(20, b"\0")
    return g[12:32] == mechanism[: max(0, min(20, len(g) - 12))]


def frame_bytes(body: bytes, more: bool, command: bool = False) -> bytes:
    """One ZMTP 3 frame."""
    flags = (_MORE if more else 0) | (_COMMAND if command else 0)
    if len(body) > 255:
        return struct.pack(">BQ", flags | _LONG, len(body)) + body
    return struct.pack(">BB", flags, len(body)) + body


class IOPubGate:
    """Relay ``kernel_port`` (the kernel's IOPub) to :attr:`port`, with a size gate.

    Args:
        kernel_port: the kernel's IOPub port on ``ip``.
        session: a ``jupyter_client.session.Session`` holding the kernel's key,
            used to sign the notice that replaces a message that was too large.
        limit: the largest message passed on, in bytes (all frames together).
    """

    def __init__(
        self, kernel_port: int, session: Any, limit: int, ip: str = "127.0.0.1"
    ) -> None:
        self.ip, self.kernel_port = ip, kernel_port
        self.session, self.limit = session, limit
        self.dropped: list[int] = []
        self.malformed = 0  # messages whose signature did not hold: left out
        self._listener = socket.create_server((ip, 0))
        self.port: int = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._closed = False
        self._thread = threading.Thread(
            target=self._accept, name="iopub-gate", daemon=True
        )
        self._thread.start()

    # -- connections --------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:  # the kernel may not listen yet: the client will reconnect
                kernel = socket.create_connection((self.ip, self.kernel_port), 5)
                kernel.settimeout(None)
            except OSError:
                _shut(client)
                time.sleep(0.005)  # the client retries as often (forked.RECONNECT_MS)
                continue
            # Each frame goes on at once, as ZeroMQ sends it: without this, a
            # small write waits for the peer's delayed ACK (40 ms a cell).
            for sock in (client, kernel):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # One live connection: a new one (the client reconnecting, or anyone
            # else) ends the previous, so memory never grows with connections.
            for sock in self._sockets:
                _shut(sock)
            self._sockets = [client, kernel]
            threading.Thread(
                target=self._pipe, args=(client, kernel), daemon=True
            ).start()
            threading.Thread(
                target=self._downstream, args=(kernel, client), daemon=True
            ).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        """Client to kernel (greeting, handshake, subscriptions): unchanged."""
        try:
            while True:
                chunk = src.recv(_CHUNK)
                if not chunk:
                    break
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            _shut(dst)

    def _downstream(self, kernel: socket.socket, client: socket.socket) -> None:
        try:
            got = b""  # sent in parts, each side waiting for the other's
            while len(got) < _GREETING:
                chunk = kernel.recv(_GREETING - len(got))
                if not chunk:
                    raise _Closed
                got += chunk
                if not greeting_ok(got):  # checked before the client sees it
                    raise _Closed
                client.sendall(chunk)
            while True:
                self._message(kernel, client)
        except (_Closed, OSError):
            pass
        finally:
            _shut(client)

    # -- one message --------------------------------------------------------------
    def _header(self, kernel: socket.socket) -> tuple[int, int]:
        flags = _read_exact(kernel, 1)[0]
        if flags & _LONG:
            (size,) = struct.unpack(">Q", _read_exact(kernel, 8))
        else:
            size = _read_exact(kernel, 1)[0]
        return flags, size

    def _message(self, kernel: socket.socket, client: socket.socket) -> None:
        frames: list[bytes] = []
        total = 0
        while True:
            flags, size = self._header(kernel)
            if flags & _COMMAND:  # handshake and heartbeats: not message data
                if size > _MAX_COMMAND:  # no real command is this large
                    raise _Closed
                client.sendall(frame_bytes(_read_exact(kernel, size), False, True))
                if not frames:
                    return
                continue
            total += size
            if total > self.limit or len(frames) >= _MAX_FRAMES:
                _skip(kernel, size)
                while flags & _MORE:
                    flags, size = self._header(kernel)
                    total += size
                    _skip(kernel, size)
                self.dropped.append(total)
                notice = self._notice(frames, total)
                if notice:
                    client.sendall(notice)
                return
            frames.append(_read_exact(kernel, size))
            if not flags & _MORE:
                break
        if not self._signed(frames):
            self.malformed += 1
            notice = self._notice(frames, total, MALFORMED)
            if notice:
                client.sendall(notice)
            return
        last = len(frames) - 1
        client.sendall(b"".join(frame_bytes(f, i < last) for i, f in enumerate(frames)))

    def _signed(self, frames: list[bytes]) -> bool:
        """Whether a whole message carries the session's signature over its
        header, parent, metadata and content (always, without a key)."""
        if getattr(self.session, "auth", None) is None:
            return True
        try:
            at = frames.index(DELIMITER)
        except ValueError:
            return False
        if len(frames) < at + 6:
            return False
        expected = self.session.sign(frames[at + 2 : at + 6])
        return hmac.compare_digest(frames[at + 1], expected)

    def _notice(
        self, frames: list[bytes], total: int, why: str | None = None
    ) -> bytes | None:
        """A signed stream message that says what was left out, or None.

        Only a few short fields of the dropped message's parent header are
        kept (enough for the client to put the notice in the right cell), so
        the notice stays small whatever the kernel put there.
        """
        try:
            at = frames.index(DELIMITER)
            topics = [t for t in frames[:at][:4] if len(t) <= 256]
            parent = _parent(frames[at + 3] if len(frames) > at + 3 else b"{}")
            parent = {
                key: value
                for key, value in parent.items()
                if key in _PARENT_KEYS and isinstance(value, str) and len(value) <= 256
            }
            text = why or (
                f"[an output of {total:,} bytes was left out: the limit is "
                f"{self.limit:,} bytes per message]"
            )
            text += "\n"
            msg = self.session.msg("stream", {"name": "stderr", "text": text}, parent)
            out = self.session.serialize(msg, ident=topics or None)
        except Exception:  # noqa: BLE001 - no notice rather than a dead relay
            return None
        last = len(out) - 1
        return b"".join(frame_bytes(f, i < last) for i, f in enumerate(out))

    def close(self) -> None:
        self._closed = True
        _shut(self._listener)
        for sock in self._sockets:
            _shut(sock)


def _parent(raw: bytes) -> dict:
    """A parent header as a dict: {} if too large, unreadable or not a dict."""
    if len(raw) > _MAX_PARENT:
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
