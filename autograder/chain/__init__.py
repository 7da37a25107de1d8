"""The grading chain: nbgrader preprocessors, one job each, named in the config.

``Autograde.sanitize_preprocessors``: :class:`Reassemble` first, nbgrader's own
steps, then :class:`SealTests`. ``Autograde.autograde_preprocessors``:
:class:`GradingExecute` instead of ``Execute``, nbgrader's ``LimitOutput``,
then :class:`Verdict` before ``SaveAutoGrades``. See ``nbgrader_config.py``.
"""

from autograder.chain.execute import GradingExecute
from autograder.chain.reassemble import Reassemble, reassemble
from autograder.chain.verdict import SealTests, Verdict

__all__ = ["GradingExecute", "Reassemble", "SealTests", "Verdict", "reassemble"]
