"""Release and grading for the course, built on nbgrader: every module, by part.

Commands: :mod:`~autograder.cli` (the ``course`` command), ``check``,
``grade_command``, ``demo``.

Lessons: ``lessons`` (find and convert sources), ``conventions`` (markers,
metadata), ``lesson_code`` (a lesson's code as a namespace), ``execute`` (a
lesson as a script), ``scratch`` (throwaway nbgrader courses, the grader's
cache and settings).

Publishing: ``release`` (the student edition), ``probe`` and ``probe_watch``
(the delegation probe), ``colab``, ``bundle``, ``site``, ``site_pages``,
``site_scan``.

Grading one notebook: ``chain`` (nbgrader preprocessors), ``measured``,
``answer_rules``, ``harness`` and ``hooks`` (the measured run),
``cuda_compile``, ``cuda_signature``, ``cuda_messages`` (kernels compiled for
real), ``reference``, ``compare`` and ``result_nodes`` (judging against the
reference), ``feedback``, ``scan``, ``guard``, ``grading`` (a few notebooks
from Python).

Kernels: ``warmkernel`` and ``forked`` (launching), ``sandbox``, ``landlock``,
``seccomp``, ``namespaces`` and ``limits`` (confining).

A class: ``classgrade`` (intake, workers, reports, the course gradebook),
``late`` (penalties), ``lms`` (Canvas and Moodle files).

Measuring: ``bench`` (``course bench``), ``bench_grading``, ``gpu_check``,
``gpu_compare``, ``gpu_extras``, ``gpu_model_check``, ``gpu_sync_checks``.
Sample submissions with their expected scores: ``samples``.
"""
