"""What goes wrong between the referee and a kernel, as exceptions here.

:class:`KernelGone` and :class:`TestTimeout` are the channel's own;
:func:`remote_exception` raises the kernel's exception in the referee as a
class of the same name and bases, so that a test's ``except`` still works.
"""

from __future__ import annotations

import builtins
from typing import Any

_EXCEPTIONS: dict[tuple[str, str, str], type] = {}


class KernelGone(RuntimeError):
    """The kernel died, was stopped, or broke the channel: no test can run there."""


class TestTimeout(Exception):
    """The test ran past its time (the kernel was interrupted)."""


def remote_exception(info: Any) -> BaseException:
    """The kernel's exception, raised here as a class of the same name and bases:
    a built-in class for built-in exceptions, else a new class under the
    nearest built-in one, so that ``except ValueError`` still catches it."""
    if not isinstance(info, dict):
        return RuntimeError(str(info)[:500])
    name, module = str(info.get("type", "Exception")), str(info.get("module", ""))
    mro = [str(m) for m in info.get("mro") or []][:32]
    message = str(info.get("message", ""))
    kind = getattr(builtins, name, None) if module == "builtins" else None
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        base = next(
            (
                getattr(builtins, m)
                for m in mro[1:]
                if isinstance(getattr(builtins, m, None), type)
                and issubclass(getattr(builtins, m), Exception)
            ),
            Exception,
        )
        key = (module, name, base.__name__)
        if key not in _EXCEPTIONS:
            _EXCEPTIONS[key] = type(name, (base,), {"__module__": module})
        kind = _EXCEPTIONS[key]
    if issubclass(kind, KeyboardInterrupt) or not issubclass(kind, Exception):
        kind = RuntimeError  # the kernel's SystemExit or interrupt stays the kernel's
        message = f"{name}: {message}"
    exc = kind(message)
    exc._course_mro = tuple(mro) or (name,)  # type: ignore[attr-defined]
    exc._course_traceback = str(info.get("traceback", ""))[-4000:]  # type: ignore[attr-defined]
    return exc


__all__ = ["KernelGone", "TestTimeout", "remote_exception"]
