"""Day 02's notebook as Day 01."""
# score: 0
# kind: broken
# status: wrong-lesson
# file: lesson:02_migration
