"""Grading kernels: started warm (``warmkernel``, ``warmshare``, ``forked``; the
requests between them, ``forkwire``),
confined (``sandbox`` with ``landlock``, ``seccomp``, ``namespaces``) and capped
(``limits``)."""
