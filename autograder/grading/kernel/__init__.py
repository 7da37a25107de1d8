"""Grading kernels: started warm (``warmkernel``, ``forked``), confined
(``sandbox`` with ``landlock``, ``seccomp``, ``namespaces``) and capped
(``limits``)."""
