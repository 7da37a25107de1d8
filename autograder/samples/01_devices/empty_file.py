"""Empty file."""
# score: 0
# kind: broken
# status: unreadable
# file: empty
