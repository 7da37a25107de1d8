"""Test grade_ids changed."""
# score: 12
# kind: tampered
# flagged: yes
# tamper: renames-ids
