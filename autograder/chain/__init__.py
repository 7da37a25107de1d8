"""The grading chain: moved to :mod:`autograder.grading.chain`; this name, and
each of its modules (``autograder.chain.execute`` ...), stays for the configs
that name them, as the very same modules."""

import importlib
import pkgutil
import sys

_moved = importlib.import_module("autograder.grading.chain")
for _info in pkgutil.iter_modules(_moved.__path__):
    sys.modules[f"{__name__}.{_info.name}"] = importlib.import_module(
        f"{_moved.__name__}.{_info.name}"
    )
sys.modules[__name__] = _moved
