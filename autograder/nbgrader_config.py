"""nbgrader configuration for this course.

The course root is the repository root (the folder above this file):

* ``solutions/<NN_topic>/`` - the instructor edition, one jupytext source per
  lesson. nbgrader never reads it directly: ``course release`` converts each
  source to a notebook in a scratch copy first (see ``autograder/publish/release.py``).
* ``notebooks/<NN_topic>/`` - the student edition that ``course release`` writes.
* ``submitted/``, ``autograded/``, ``feedback/`` and ``gradebook.db`` - grading
  state, never committed.

Run nbgrader commands through the ``course`` CLI, or with ``nbgrader`` itself at
the repository root, where ``nbgrader_config.py`` loads this file.
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

# nbgrader runs `alembic` by name when it makes a gradebook (`nbgrader collect`,
# formgrader): `.venv/bin/nbgrader` finds its own environment's without
# activating it.
from autograder.config.settings import put_python_on_path  # noqa: E402

put_python_on_path()

c.CourseDirectory.root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
c.CourseDirectory.course_id = "gpu-course"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

# Student edition: each answer region becomes a stub that fails loudly.
c.ClearSolutions.code_stub = {
    "python": (
        "# YOUR CODE HERE\n"
        'raise NotImplementedError("Replace this line with your code: '
        'see the docstring and hints above.")'
    )
}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Grading: a stuck cell loses its points instead of stalling the batch.
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True

# The grading chain (autograder/grading/chain): the submission is rebuilt on the
# released notebook; the notebook runs in a warm, confined kernel, test cells
# skipped there; each test runs in the referee, in the grader's process, against
# the kernel's objects; each test cell's verdict is made here by comparing what
# the test saw with what it saw of the reference solution.
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)

from autograder.grading.chain import (  # noqa: E402
    GradingExecute,
    Reassemble,
    Referee,
    Verdict,
)

c.Autograde.sanitize_preprocessors = [
    Reassemble,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    Referee,
    GradingExecute,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    Verdict,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
# seconds per cell, for `nbgrader autograde` and `course grade` alike (an
# instructor's root config may set another; --timeout overrides it)
c.GradingExecute.timeout = 60
c.GradingExecute.interrupt_on_timeout = True
# Caps per notebook: a notebook file larger than max_source_bytes is not run
# (each test scores 0, with the reason); output messages of every kind count
# toward max_output_bytes, the rest is dropped; the whole notebook runs at most
# max_notebook_seconds (None: min(900, 30 x timeout)), then its kernel is
# stopped and what ran is graded.
c.GradingExecute.max_source_bytes = 20_000_000
c.GradingExecute.max_output_bytes = 2_000_000
c.GradingExecute.max_notebook_seconds = None

# Late submissions: the penalty nbgrader's AssignLatePenalties gives against a
# lesson's due date (`nbgrader db assignment add LESSON --duedate=...` or
# `course grade --due`). nbgrader's own methods are "none" and "zero"; for points
# off per started hour late, use the course's example plugin instead:
#   c.AssignLatePenalties.plugin_class = "autograder.classgrade.late.PerHourPenalty"
#   c.PerHourPenalty.points_per_hour = 0.5
#   c.PerHourPenalty.grace_minutes = 5
c.LateSubmissionPlugin.penalty_method = "none"

# Feedback: never show hidden-test code, in sources or in tracebacks.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import GetGrades  # noqa: E402

from autograder.grading.chain.sanitize import SanitizeOutputs  # noqa: E402
from autograder.grading.feedback import HideHiddenTests  # noqa: E402

c.GenerateFeedback.preprocessors = [
    GetGrades,
    CSSHTMLHeaderPreprocessor,
    HideHiddenTests,
    SanitizeOutputs,
]

# Huge outputs are cut before they reach the gradebook and feedback.
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100
