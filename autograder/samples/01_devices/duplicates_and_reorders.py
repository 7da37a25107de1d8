"""Answer duplicated, cells in reverse order."""
# score: 12
# kind: tampered
# flagged: yes
# tamper: duplicates-and-reorders
