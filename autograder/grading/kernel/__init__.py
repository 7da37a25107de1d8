"""Grading kernels: started warm (``warmkernel``, ``warmshare``, ``forked``),
confined (``sandbox`` with ``landlock``, ``seccomp``, ``namespaces``) and capped
(``limits``)."""
