"""The grading chain: nbgrader preprocessors, one job each, named in the config.

``Autograde.sanitize_preprocessors``: :class:`Reassemble` first, then nbgrader's
own steps. ``Autograde.autograde_preprocessors``: :class:`MeasuredRun` (every
test, in a kernel of the grader's), :class:`GradingExecute` instead of
``Execute`` (the rest of the notebook, for feedback), nbgrader's
``LimitOutput``, then :class:`Verdict` before ``SaveAutoGrades``. See
``nbgrader_config.py``.
"""

from autograder.grading.chain.execute import GradingExecute
from autograder.grading.chain.measured import MeasuredRun
from autograder.grading.chain.reassemble import Reassemble, reassemble
from autograder.grading.chain.verdict import Verdict

__all__ = ["GradingExecute", "MeasuredRun", "Reassemble", "Verdict", "reassemble"]
