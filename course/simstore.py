"""The simulated GPU's store: device memory, the ops it runs, and its counters.

A :class:`Store` keeps every device array (and device object, such as a
random generator) under a 128-bit random id, and answers requests
(:mod:`course.simlink`): an upload, an op, a read. It counts each one, as a
GPU's driver would see it:

* a **launch** for every op that computes (a NumPy function, ufunc or array
  method on device data, an index, an assignment) and for every numba-cuda
  kernel launch, with the copies numba makes of host arrays
  (:mod:`course.simkernels`);
* an **upload** (host to device) or a **download** (device to host) for every
  copy, with its bytes; a download is also a **sync**;
* a **sync** for an error, which CUDA reports at the next synchronisation,
  and for an op whose result's shape depends on the data (``nonzero``,
  ``unique``, a boolean mask): CuPy waits for the GPU to size the result
  (the rule of :mod:`course.syncrules`, which the store reads).

It runs only the ops of its allow-list (:data:`FUNCTIONS`, :data:`METHODS`,
NumPy's ufuncs). Copies, syncs and errors are also kept as events (kind, op,
bytes, the line the request named), which the counters of
:mod:`course.sync` and :mod:`course.transfers` read back.

Run as ``python -m course.simstore DATA_FD CONTROL_FD``, it serves a student's
kernel on the first channel and a grader on the second: only the control
channel may read or place data without a count (``fetch``, ``put``), read the
totals (``counts``), or see events of the whole store.
"""

from __future__ import annotations

import os
import secrets
import selectors
import socket
import sys
from collections import Counter
from typing import Any

import numpy as np

from course.simkernels import launched
from course.simwire import decode, encode, receive, send
from course.syncrules import STORE_SIZE

_NAMESPACES = {
    "numpy": np,
    "numpy.linalg": np.linalg,
    "numpy.random": np.random,
    "numpy.fft": np.fft,
}
#: NumPy names the store refuses: files, Python callbacks, raw memory, settings.
_REFUSED = frozenset(
    "load loads save savez savez_compressed savetxt loadtxt genfromtxt fromfile "
    "fromregex frombuffer fromiter fromfunction fromstring memmap frompyfunc "
    "vectorize apply_along_axis apply_over_axes piecewise set_printoptions "
    "printoptions get_printoptions seterr seterrcall geterr errstate "
    "setbufsize getbufsize show_config show_runtime info source test "
    "lookfor who deprecate byte_bounds ctypeslib lib testing char rec ma "
    "polynomial emath strings typing exceptions dtypes f2py distutils "
    "set_state get_state asanyarray require nditer nested_iters "
    "broadcast ndindex ndenumerate".split()
)


def _functions() -> frozenset[str]:
    found = set()
    for path, module in _NAMESPACES.items():
        for name in dir(module):
            if name.startswith("_") or name in _REFUSED:
                continue
            value = getattr(module, name, None)
            if callable(value) and not isinstance(value, type):
                found.add(f"{path}.{name}")
    return frozenset(found)


#: The functions the store runs, as ``module.name``.
FUNCTIONS = _functions()
#: Array methods and attributes the store runs (on device arrays).
METHODS = frozenset(
    "T all any argmax argmin argpartition argsort astype byteswap choose clip "
    "compress conj conjugate copy cumprod cumsum diagonal dot fill flatten imag "
    "max mean min nonzero partition prod ptp put ravel real repeat reshape round "
    "searchsorted sort squeeze std sum swapaxes take trace transpose var view "
    "mT".split()
)
#: Methods of device objects (NumPy's random generators).
OBJECT_METHODS = frozenset(
    "beta binomial bytes chisquare choice dirichlet exponential f gamma geometric "
    "gumbel hypergeometric integers laplace logistic lognormal logseries "
    "multinomial multivariate_normal negative_binomial noncentral_chisquare "
    "noncentral_f normal pareto permutation permuted poisson power random "
    "rayleigh shuffle standard_cauchy standard_exponential standard_gamma "
    "standard_normal standard_t triangular uniform vonmises wald weibull zipf "
    "rand randn randint random_sample seed spawn".split()
)
#: Ops whose result size depends on the data (:mod:`course.syncrules`).
DATA_DEPENDENT = STORE_SIZE
_MAX_EVENTS = 200_000


class Store:
    """Device memory and its counters (see the module)."""

    def __init__(self, launcher: Any = None) -> None:
        from course.simkernels import run_here

        #: Runs a kernel launch (:mod:`course.simkernels`): in this process
        #: unless the grader gives a confined child.
        self.launcher = launcher or run_here
        self.objects: dict[bytes, Any] = {}
        self.versions: dict[bytes, int] = {}
        self.counts: Counter[str] = Counter()
        self.by_op: Counter[str] = Counter()
        self.events: list[list[Any]] = []
        self.dropped = 0
        #: each kernel it ran, ``[name, signature, source]``, once
        self.kernels: list[list[str]] = []
        self._kernel_ids: dict[tuple[str, str, str], int] = {}
        #: each launch: ``[event index, kernel id, outputs or None]``
        self.launches: list[list[Any]] = []

    # Handles.
    def _new(self, value: Any) -> Any:
        if isinstance(value, np.generic):
            value = np.asarray(value)
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise TypeError("arrays of Python objects cannot live on the device")
            key = secrets.token_bytes(16)
            self.objects[key] = value
            return ["r", key, list(value.shape), value.dtype.str, "array"]
        if isinstance(value, np.random.Generator) or isinstance(
            value, np.random.RandomState
        ):
            key = secrets.token_bytes(16)
            self.objects[key] = value
            return ["r", key, None, "", type(value).__name__]
        if type(value) is tuple or (
            isinstance(value, tuple) and hasattr(value, "_fields")
        ):
            return ["t", [self._new(v) for v in value]]
        if type(value) is list:
            return ["l", [self._new(v) for v in value]]
        return encode(value)

    def _get(self, key: Any) -> Any:
        found = self.objects.get(bytes(key))
        if found is None:
            raise ValueError(
                "this device array is not in the simulated GPU's memory (it was "
                "freed, or made by another store)"
            )
        return found

    def _value(self, node: Any) -> Any:
        return decode(node, self._get)

    def _array(self, key: Any) -> np.ndarray:
        found = self._get(key)
        if not isinstance(found, np.ndarray):
            raise TypeError("not a device array")
        return found

    # Counts.
    def _event(self, kind: str, op: str, nbytes: int, where: str) -> None:
        self.counts[kind] += 1
        if kind in ("upload", "download"):
            self.counts[f"{kind}_bytes"] += int(nbytes)
        self.by_op[f"{kind}:{op}"] += 1
        if len(self.events) < _MAX_EVENTS:
            self.events.append([kind, op, int(nbytes), str(where)[:300]])
        else:
            self.dropped += 1

    def _launch(self, op: str, *values: Any) -> None:
        self.counts["launch"] += 1
        self.by_op[f"launch:{op}"] += 1
        name = op.rsplit(".", 1)[-1]
        mask = any(isinstance(v, np.ndarray) and v.dtype == bool for v in values)
        if name in DATA_DEPENDENT or (op == "getitem" and mask):
            self._event("sync", f"{op} (data-dependent size)", 0, "")

    def _wrote(self, key: Any) -> None:
        key = bytes(key)
        self.versions[key] = self.versions.get(key, 0) + 1

    # Requests.
    def handle(self, message: list[Any], control: bool = False) -> list[Any]:
        """``[frees, op, *args]`` -> ``["ok", answer]`` or ``["err", type, text]``."""
        try:
            op, args = str(message[1]), message[2:]
            if op in _CONTROL and not control:
                raise PermissionError(f"{op!r} is the grader's, not the kernel's")
            method = _OPS.get(op) or _CONTROL.get(op)
            if method is None:
                raise ValueError(f"the store has no op {op!r}")
            return ["ok", method(self, *args)]
        except Exception as exc:  # noqa: BLE001 - the answer is the error
            if not isinstance(exc, PermissionError):
                self._event("sync", "error", 0, "")
            return ["err", type(exc).__name__, str(exc)[:2000]]
        finally:  # after the op: a handle dropped while it was sent stays usable
            for key in message[0] or ():
                self.objects.pop(bytes(key), None)
                self.versions.pop(bytes(key), None)

    def upload(self, op: str, where: str, node: Any, dtype: Any = None) -> Any:
        data = np.array(self._value(node), dtype=self._value(dtype), copy=True)
        self._event("upload", op, data.nbytes, where)
        return self._new(data)

    def download(self, key: Any, op: str, where: str, index: Any = None) -> Any:
        data = self._array(key)
        if index is not None:
            value = data.item(*self._value(index))
            self._event("download", op, data.itemsize, where)
            self._event("sync", op, 0, where)
            return encode(value)
        self._event("download", op, data.nbytes, where)
        self._event("sync", op, 0, where)
        return encode(data)

    def call(self, path: str, args: Any, kwargs: Any) -> Any:
        if path not in FUNCTIONS:
            raise TypeError(f"{path} does not run on the simulated GPU")
        module, name = path.rsplit(".", 1)
        args, kwargs = self._value(args), self._value(kwargs)
        self._launch(path, *args, *kwargs.values())
        return self._new(getattr(_NAMESPACES[module], name)(*args, **kwargs))

    def ufunc(self, name: str, method: str, args: Any, kwargs: Any) -> Any:
        ufunc = getattr(np, name, None)
        if not isinstance(ufunc, np.ufunc) or method not in (
            "__call__",
            "reduce",
            "accumulate",
            "outer",
            "at",
            "reduceat",
        ):
            raise TypeError(f"{name}.{method} does not run on the simulated GPU")
        written = _keys_in(kwargs)
        if method == "at" and isinstance(args, list) and len(args) > 1 and args[1]:
            written += _keys_in(args[1][0])  # ufunc.at(a, ...) writes into a
        args, kwargs = self._value(args), self._value(kwargs)
        self._launch(f"ufunc.{name}")
        result = getattr(ufunc, method)(*args, **kwargs)
        for key in written:
            self._wrote(key)
        if "out" in kwargs or method == "at":
            return None
        return self._new(result)

    def method(self, key: Any, name: str, args: Any, kwargs: Any) -> Any:
        target = self._get(key)
        allowed = METHODS if isinstance(target, np.ndarray) else OBJECT_METHODS
        if name not in allowed:
            raise AttributeError(f"{name!r} does not run on the simulated GPU")
        args, kwargs = self._value(args), self._value(kwargs)
        self._launch(name, target)
        value = getattr(target, name)
        result = value(*args, **kwargs) if callable(value) else value
        if name in ("fill", "sort", "put", "partition", "shuffle"):
            self._wrote(key)
        return self._new(result)

    def getitem(self, key: Any, index: Any, flat: bool = False) -> Any:
        data, index = self._array(key), self._value(index)
        keys = index if isinstance(index, tuple) else (index,)
        self._launch("getitem", *keys)
        return self._new((data.flat if flat else data)[index])

    def setitem(self, key: Any, index: Any, value: Any, flat: bool = False) -> None:
        data, index, value = self._array(key), self._value(index), self._value(value)
        self._launch("setitem")
        (data.flat if flat else data)[index] = value
        self._wrote(key)

    def join(self, nested: Any, dtype: Any) -> Any:
        """A (nested) list of device arrays as one: no copy to the host."""
        self._launch("join")
        return self._new(np.array(self._value(nested), dtype=self._value(dtype)))

    def launch(self, *args: Any) -> Any:
        from course.simkernels import store_launch

        return store_launch(self, *args)

    def meta(self, key: Any) -> Any:
        data = self._array(key)
        return [list(data.shape), data.dtype.str, self.versions.get(bytes(key), 0)]

    def mark(self) -> int:
        return len(self.events) + self.dropped

    def since(self, mark: int, upto: Any = None) -> list[Any]:
        start = max(0, int(mark) - self.dropped)
        stop = None if upto is None else max(0, int(upto) - self.dropped)
        return self.events[start:stop]

    # The control channel's own.
    def fetch(self, key: Any) -> Any:
        return encode(self._array(key))

    def put(self, node: Any) -> Any:
        return self._new(np.array(self._value(node), copy=True))

    def totals(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "by_op": dict(self.by_op),
            "arrays": len(self.objects),
            "process": _process(),
        }


def _process() -> dict[str, Any]:
    """Where the store runs: its pid, user and PID namespace."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return {"pid": os.getpid(), "uid": os.getuid(), "pid_namespace": namespace}


def _keys_in(node: Any) -> list[bytes]:
    """Every handle in an encoded value (``out=`` arrays: written)."""
    if not isinstance(node, list) or not node:
        return []
    if node[0] == "h":
        return [bytes(node[1])]
    return [k for part in node[1:] for k in _keys_in(part)]


_OPS = {
    "upload": Store.upload,
    "download": Store.download,
    "call": Store.call,
    "ufunc": Store.ufunc,
    "method": Store.method,
    "getitem": Store.getitem,
    "setitem": Store.setitem,
    "join": Store.join,
    "launch": Store.launch,
    "meta": Store.meta,
    "mark": Store.mark,
    "since": Store.since,
}
_CONTROL = {
    "fetch": Store.fetch,
    "put": Store.put,
    "totals": Store.totals,
    "launched": launched,
}


def serve(data: socket.socket, control: socket.socket, launcher: Any = None) -> None:
    """Answer the kernel on ``data`` and the grader on ``control`` until both
    have closed (kernel launches run by ``launcher``, see :class:`Store`)."""
    store = Store(launcher)
    selector = selectors.DefaultSelector()
    selector.register(data, selectors.EVENT_READ, False)
    selector.register(control, selectors.EVENT_READ, True)
    open_ends = 2
    while open_ends:
        for key, _ in selector.select():
            sock = key.fileobj
            try:
                message = receive(sock)  # type: ignore[arg-type]
            except (EOFError, OSError, ValueError):
                selector.unregister(sock)
                sock.close()  # type: ignore[union-attr]
                open_ends -= 1
                continue
            try:
                send(sock, store.handle(message, control=key.data))  # type: ignore[arg-type]
            except OSError:
                pass


def main(argv: list[str]) -> None:
    data = socket.socket(fileno=int(argv[0]))
    control = socket.socket(fileno=int(argv[1]))
    serve(data, control)


if __name__ == "__main__":
    os.environ.pop("COURSE_STORE_FD", None)
    main(sys.argv[1:])
