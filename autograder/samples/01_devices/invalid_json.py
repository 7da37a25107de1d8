"""Not JSON."""
# score: 0
# kind: broken
# status: unreadable
# file: invalid-json
