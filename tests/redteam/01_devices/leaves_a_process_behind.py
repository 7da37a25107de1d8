"""Starts a process in a session of its own, to outlive the notebook.

Every process the kernel started is killed when the notebook ends (the
grading test looks for it afterwards); the right answers keep their points.
"""
# score: 12
# review: yes
# %% 01-memory-report
import subprocess

# <reference>

subprocess.Popen(["sleep", "600", "{marker}"], start_new_session=True)
