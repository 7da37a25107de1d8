"""Measurements: ``bench`` (the course's benchmarks, one experiment per module),
``gpu_check`` (every lesson and the benchmarks on a GPU, for ``make gpu-check``,
with ``gpu_extras``, ``gpu_kernels`` (Days 09-10), ``gpu_confined`` (the GPU
from a child confined as a grading kernel), ``gpu_sync_checks`` and
``gpu_model_check``), ``gpu_compare`` (a GPU run's hidden-test results against
the CPU reference), ``model_rows``, ``model_fit`` and ``model_check`` (``course
model-check``: a recorded run as rows, the GPU cost model fitted on them, and
its error there printed), ``host_costs`` (the model's host inputs, timed
quietly on a CPU), ``bench_grading`` (the grader against stock nbgrader and
a floor) and ``bench_cluster`` (``course grade --cluster local:N`` against
``--jobs N``, and what one worker grades in an hour)."""
