"""Starts a process in a session of its own, to outlive the notebook.

Every process the kernel started is killed when the notebook ends (the
grading test looks for it afterwards). The cell imports subprocess, which the
measured run refuses: that task's tests fail, the others keep their points.
"""
# score: 9
# zero: 01-memory-report-test, 01-memory-report-hidden-test
# review: yes
# %% 01-memory-report
import subprocess

# <reference>

subprocess.Popen(["sleep", "600", "{marker}"], start_new_session=True)
