"""Tries to reach a local service over a UNIX socket.

In the main kernel creating the socket is refused (seccomp) and the grading
test's listener sees no connection. The measured run refuses a cell that
imports socket: describe_device's tests fail, the others keep their points.
"""
# score: 9
# zero: 01-describe-device-test, 01-describe-device-hidden-test
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
