"""The grading chain: nbgrader preprocessors, one job each, named in the config.

``Autograde.sanitize_preprocessors``: :class:`Reassemble` first, then nbgrader's
own steps. ``Autograde.autograde_preprocessors``: :class:`Referee` (the test
cells run beside the kernel, not in it), :class:`GradingExecute` instead of
``Execute`` (the notebook, its tests in the referee), nbgrader's
``LimitOutput``, then :class:`Verdict` before ``SaveAutoGrades``. See
``nbgrader_config.py``.
"""

from autograder.grading.chain.execute import GradingExecute
from autograder.grading.chain.reassemble import Reassemble, reassemble
from autograder.grading.chain.referee import Referee
from autograder.grading.chain.verdict import Verdict

__all__ = ["GradingExecute", "Reassemble", "Referee", "Verdict", "reassemble"]
