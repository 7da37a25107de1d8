"""Work that a test run does once, whatever the number of xdist workers."""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from typing import Any


def once_per_run(factory: Any, name: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per test run: its result is pickled in the run's base
    temp folder, under a file lock, and read back by every later caller, in
    this xdist worker (which may tear a session fixture down and set it up
    again) or another."""
    base = factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    done = shared / f"once-{name}.pickle"
    with open(shared / f"once-{name}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_file():
            return pickle.loads(done.read_bytes())
        value = compute()
        partial = done.with_suffix(f".tmp{os.getpid()}")
        partial.write_bytes(pickle.dumps(value))
        os.replace(partial, done)
        return value
