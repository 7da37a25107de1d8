"""Release and grading for the course, built on nbgrader: its parts, one folder each.

- ``cli``: the ``course`` command (``cli/__init__.py``), one module per
  command that needs more than a few lines: ``grade``, ``check``, ``demo``,
  ``similarity``, ``due``, ``extend``, ``release``, ``releases`` (the kept
  releases, listed and pruned); ``reference`` (every command's help, for the website).
- ``lessons``: find and convert the sources (the package itself), the
  course's ``conventions`` (markers, metadata), the ``colab`` cells every
  notebook starts with, a lesson's ``code`` as a namespace, a lesson run as a
  ``script``.
- ``publish``: ``release`` (the student edition), ``probe`` and
  ``probe_watch`` (the delegation probe), ``bundle``, ``site``,
  ``site_pages``, ``site_links``, ``leaks``, ``image_check`` (the Kubernetes
  image).
- ``grading``: one notebook graded. ``chain`` (nbgrader preprocessors, and
  ``chain/run.py``, the chain in memory), ``kernel`` (``warmkernel``, ``warmshare`` and
  ``forked`` launch kernels, ``become`` turns a forked child into one;
  ``sandbox``, ``landlock``, ``seccomp``, ``namespaces``, ``nobody`` and
  ``limits`` confine them), the ``referee`` (tests run
  in the grader's process against the kernel's objects; ``agent`` and
  ``launches`` are its kernel side), ``scan`` (answers listed for review),
  the verdict's comparison (``reference``, ``compare``,
  ``result_nodes``), kernels compiled for real (``cuda_compile``,
  ``cuda_signature``, ``cuda_messages``), ``feedback``; the package's own
  functions grade a few notebooks from Python.
- ``classgrade``: a class graded: ``request`` (``Request``, ``plan``),
  ``worker``, ``store``, ``batch`` (run and publish), ``intake``,
  ``unzip`` and ``screen`` (twins, links, unsafe ids), ``gradebook``,
  ``late`` (penalties), ``lms`` (Canvas and Moodle files), ``reports``,
  ``progress``.
- ``measure``: ``bench`` (``course bench``), ``bench_grading``, ``gpu_check``,
  ``gpu_compare``, ``gpu_extras``, ``gpu_model_check``, ``gpu_sync_checks``.
- ``config``: ``settings`` (the nbgrader settings each run loads, the grader's
  cache); ``nbgrader_config.py`` beside this file is the course's nbgrader
  configuration.
- ``samples``: sample submissions with their expected scores.

A config that names a module by an old name (``autograder.late``, say) is
stopped with the new name (:data:`autograder.config.settings.MOVED`).
"""
