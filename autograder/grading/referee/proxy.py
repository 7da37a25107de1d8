"""A stand-in, in the referee, for an object that stays in the student's kernel.

Every operation Python applies to a :class:`Proxy` is a request to the kernel's
agent through its :class:`~autograder.grading.referee.link.Link`, except the
ones a check could be decided by: ``bool``, ``==``, ``!=``, ``<``... compare the
object's value as data, copied here (:meth:`Link.materialize`). An object that
has no value as data (a model, a function) is equal only to itself, and its
truth cannot be asked.
"""

from __future__ import annotations

import operator
from typing import Any

from autograder.grading.referee import wire

_SLOTS = ("_course_link", "_course_h", "_course_type")


def _link(proxy: Proxy) -> Any:
    return object.__getattribute__(proxy, "_course_link")


def _call(proxy: Proxy, op: str, *args: Any) -> Any:
    return _link(proxy).call(op, *args)


def local_type(proxy: Proxy) -> type | None:
    """The referee's own class for the class this proxy stands for, if any."""
    path = object.__getattribute__(proxy, "_course_type")
    return wire.loaded_type(*path[2:4]) if len(path) >= 4 else None


def value_of(value: Any) -> Any:
    """``value`` as data where it has data (see the module); proxies stay."""
    if type(value) is Proxy:
        return _link(value).materialize(value)
    return value


def _plain(value: Any) -> bool:
    return type(value) is not Proxy


class Proxy:
    """See the module."""

    __slots__ = (*_SLOTS, "__weakref__")
    __array_ufunc__ = None  # NumPy gives way to the proxy's own operators

    def __init__(self, link: Any, hid: int, path: tuple[str, ...]) -> None:
        object.__setattr__(self, "_course_link", link)
        object.__setattr__(self, "_course_h", hid)
        object.__setattr__(self, "_course_type", path)

    # Attributes and calls.
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_course_") or name in ("__getstate__", "__reduce_ex__"):
            raise AttributeError(name)
        return _call(self, "getattr", self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        _call(self, "setattr", self, name, value)

    def __delattr__(self, name: str) -> None:
        _call(self, "delattr", self, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self, "call", self, args, kwargs)

    def __dir__(self) -> list[str]:
        return list(_call(self, "dir", self))

    @property
    def __class__(self) -> type:  # what isinstance() falls back to
        path = object.__getattribute__(self, "_course_type")
        return wire.loaded_type(*path[:2]) or Proxy

    def __instancecheck__(self, value: Any) -> bool:
        if type(value) is Proxy:
            return bool(_call(self, "isinstance", value, self))
        mine = local_type(self)
        return mine is not None and isinstance(value, mine)

    def __subclasscheck__(self, kind: Any) -> bool:
        if type(kind) is Proxy:
            return bool(_call(self, "issubclass", kind, self))
        mine = local_type(self)
        return mine is not None and isinstance(kind, type) and issubclass(kind, mine)

    def __mro_entries__(self, bases: tuple) -> tuple:
        raise TypeError(
            "a test cannot subclass a class defined in the notebook; the lesson "
            "(or course) must define the subclass the test needs"
        )

    # Containers and iteration.
    def __len__(self) -> int:
        return operator.index(_call(self, "len", self))

    def __getitem__(self, key: Any) -> Any:
        return _call(self, "getitem", self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _call(self, "setitem", self, key, value)

    def __delitem__(self, key: Any) -> None:
        _call(self, "delitem", self, key)

    def __contains__(self, item: Any) -> bool:
        return bool(value_of(_call(self, "contains", self, item)))

    def __iter__(self) -> Any:
        kind, found = _call(self, "iter", self)
        return iter(found) if kind == "items" else _Iterator(found)

    def __next__(self) -> Any:
        return _call(self, "next", self)

    def __reversed__(self) -> Any:
        return _Iterator(_call(self, "reversed", self))

    # Conversions.
    def __index__(self) -> int:
        return operator.index(_call(self, "index", self))

    def __int__(self) -> int:
        return int(_call(self, "int", self))

    def __float__(self) -> float:
        return float(_call(self, "float", self))

    def __complex__(self) -> complex:
        return complex(_call(self, "complex", self))

    def __round__(self, digits: Any = None) -> Any:
        return _call(self, "round", self, digits)

    def __str__(self) -> str:
        return str(_call(self, "str", self))

    def __repr__(self) -> str:
        return str(_call(self, "repr", self))

    def __format__(self, spec: str) -> str:
        return str(_call(self, "format", self, spec))

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        value = value_of(self)
        if type(value) is Proxy:
            raise TypeError("this object of the notebook has no value as an array")
        return np.asarray(value, dtype=dtype)

    # What decides a check: data, compared here.
    def __bool__(self) -> bool:
        value = value_of(self)
        if type(value) is Proxy:
            kind = ".".join(object.__getattribute__(self, "_course_type")[:2])
            raise TypeError(
                f"the test cannot decide whether a {kind} is true: it has no value "
                "as data"
            )
        return bool(value)

    def __eq__(self, other: Any) -> Any:
        if type(other) is Proxy and _link(other) is _link(self):
            if object.__getattribute__(other, "_course_h") == object.__getattribute__(
                self, "_course_h"
            ):
                return True
        mine, theirs = value_of(self), value_of(other)
        if type(mine) is Proxy or type(theirs) is Proxy:
            return False
        return mine == theirs

    def __ne__(self, other: Any) -> Any:
        result = self.__eq__(other)
        return not result if isinstance(result, bool) else ~result

    def __hash__(self) -> int:
        return hash(("proxy", object.__getattribute__(self, "_course_h")))

    def _ordered(self, other: Any, compare: Any) -> Any:
        mine, theirs = value_of(self), value_of(other)
        if type(mine) is Proxy or type(theirs) is Proxy:
            raise TypeError("the test cannot order objects that have no value as data")
        return compare(mine, theirs)

    def __lt__(self, other: Any) -> Any:
        return self._ordered(other, operator.lt)

    def __le__(self, other: Any) -> Any:
        return self._ordered(other, operator.le)

    def __gt__(self, other: Any) -> Any:
        return self._ordered(other, operator.gt)

    def __ge__(self, other: Any) -> Any:
        return self._ordered(other, operator.ge)

    # Context managers: entered and left in the kernel.
    def __enter__(self) -> Any:
        return _call(self, "enter", self)

    def __exit__(self, *exc: Any) -> bool:
        result = _call(self, "exit", self, None, None, None)
        return bool(value_of(result)) if exc[0] is not None else False

    def __course_encode__(self, depth: int = 0) -> Any:
        """How :func:`course.results.encode` describes a proxy: by its data."""
        from course.results import encode

        value = value_of(self)
        if type(value) is Proxy:
            module, name = object.__getattribute__(self, "_course_type")[:2]
            return {"t": "object", "type": f"{module}.{name}"}
        return encode(value, depth)


class _Iterator:
    def __init__(self, remote: Any) -> None:
        self.remote = remote

    def __iter__(self) -> _Iterator:
        return self

    def __next__(self) -> Any:
        return next(self.remote)


def _binary(name: str, reflected: bool = False) -> Any:
    def method(self: Proxy, other: Any) -> Any:
        if reflected:
            return _call(self, name, other, self)
        return _call(self, name, self, other)

    return method


def _unary(name: str) -> Any:
    def method(self: Proxy) -> Any:
        return _call(self, name, self)

    return method


for _op in (
    "add sub mul truediv floordiv mod pow matmul lshift rshift and or xor divmod"
).split():
    setattr(Proxy, f"__{_op}__", _binary(_op))
    setattr(Proxy, f"__r{_op}__", _binary(_op, reflected=True))
    if _op != "divmod":
        setattr(Proxy, f"__i{_op}__", _binary(f"i{_op}"))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(Proxy, f"__{_op}__", _unary(_op))

__all__ = ["Proxy", "local_type", "value_of"]
