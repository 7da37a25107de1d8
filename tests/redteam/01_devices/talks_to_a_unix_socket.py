"""Tries to reach a local service over a UNIX socket.

Creating the socket is refused (seccomp); the grading test's listener sees
no connection, and the right answers keep their points.
"""
# score: 12
# review: yes
# %% 01-describe-device
import socket

# <reference>

try:
    _u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _u.connect("{unix_path}")
    _u.sendall(b"{marker}")
    print("UNIX: sent")
except OSError as exc:
    print("UNIX:", type(exc).__name__)
