"""Grading kernels: started warm (``warmkernel``, ``warmshare``: the kernel server,
on :mod:`autograder.grading.forkserver`; ``forked``),
confined (``sandbox`` with ``landlock``, ``seccomp``, ``namespaces``) and capped
(``limits``)."""
