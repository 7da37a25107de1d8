"""Tries to send a datagram (UDP is how a DNS query leaves a machine).

The socket is refused (seccomp) and the grading test's UDP listener receives
nothing. The answer beneath is correct and runs as written (nothing is
refused for importing socket): full marks.
"""
# score: 12
# review: yes
# %% 01-pick-device
import socket

# <reference>

try:
    _s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _s.sendto(b"{marker}", ("127.0.0.1", {udp_port}))
    print("UDP: sent")
except OSError as exc:
    print("UDP:", type(exc).__name__)
