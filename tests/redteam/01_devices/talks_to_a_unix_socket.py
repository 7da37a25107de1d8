"""Tries to reach a local service over a UNIX socket.

Creating the socket is refused (seccomp) and the grading test's listener sees
no connection. The answer beneath is correct and runs as written: full marks.
"""
# score: 12
# review: yes
# %% 01-usable-memory
import socket

# <reference>

try:
    _u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _u.connect("{unix_path}")
    _u.sendall(b"{marker}")
    print("UNIX: sent")
except OSError as exc:
    print("UNIX:", type(exc).__name__)
