"""Starts a process in a session of its own, to outlive the notebook.

Every process the kernel started is killed when the notebook ends (the
grading test looks for it afterwards). The answer beneath is correct and runs
as written (nothing is refused for importing subprocess): full marks.
"""
# score: 12
# review: yes
# %% 01-training-memory
import subprocess

# <reference>

subprocess.Popen(["sleep", "600", "{marker}"], start_new_session=True)
