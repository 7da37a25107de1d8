"""Tries to send a datagram (UDP is how a DNS query leaves a machine).

In the main kernel the socket is refused (seccomp) and the grading test's UDP
listener receives nothing. The measured run refuses a cell that imports
socket, so pick_device's tests fail; the other answers keep their points.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
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
