"""All cell metadata removed."""
# score: 12
# kind: tampered
# flagged: yes
# tamper: strips-metadata
