"""Kernelspec changed."""
# score: 12
# kind: tampered
# flagged: yes
# tamper: changes-kernel
