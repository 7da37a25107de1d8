"""Measurements: ``bench`` (the course's benchmarks, one experiment per module),
``gpu_check`` (every lesson and the benchmarks on a GPU, for ``make gpu-check``,
with ``gpu_extras``, ``gpu_sync_checks`` and ``gpu_model_check``), ``gpu_compare``
(a GPU run's hidden-test results against the CPU reference) and
``bench_grading`` (the grader against stock nbgrader and a floor)."""
