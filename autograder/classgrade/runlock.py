"""One grading run at a time on an output folder and on a course's gradebook.

Two ``course grade`` runs on one course would write one SQLite gradebook and
one ``grades.csv`` at once. :func:`one_run` takes an exclusive ``flock`` on a
lock file beside each (``OUT/.course-grade.lock``, ``gradebook.db.lock``) and
writes who holds it there. A second run refuses at once with one line naming
the first. The kernel releases a lock when its process dies, so a killed run
never blocks the next one: the next run finds the killed run's record still
in the file, and says so.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


class RunLocked(ValueError):
    """Another run holds the lock (one line, for the CLI)."""


def _holder(handle: IO[str]) -> dict:
    handle.seek(0)
    try:
        data = json.loads(handle.read() or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _describe(holder: dict) -> str:
    if not holder:
        return "a run that left no record"
    started = time.strftime(
        "%Y-%m-%d %H:%M:%S", time.localtime(holder.get("started", 0))
    )
    return f"pid {holder.get('pid')}, started {started}: {holder.get('command', '?')}"


@contextmanager
def one_run(locks: dict[Path, str], notes: list[str] | None = None) -> Iterator[None]:
    """Hold every lock in ``locks`` (a path and what it guards) for the block.

    ``notes`` receives a line for each lock a killed run left behind.

    Raises:
        RunLocked: a lock is held by a running process.
    """
    held: list[IO[str]] = []
    try:
        for path, what in locks.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held
            except PermissionError:  # another instructor's file: lock, no record
                handle = open(path, encoding="utf-8")  # noqa: SIM115
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(handle)
                handle.close()
                raise RunLocked(
                    f"another `course grade` is running on {what} "
                    f"({_describe(holder)}); wait for it to finish, or stop it"
                ) from None
            except OSError as exc:
                if exc.errno != errno.ENOLCK:
                    raise
                handle.close()  # a file system without locks (some network mounts)
                if notes is not None:
                    notes.append(f"{what}: its file system has no locks; unguarded")
                continue
            held.append(handle)
            stale = _holder(handle)
            if stale and notes is not None:
                notes.append(
                    f"an earlier run on {what} ended without finishing "
                    f"({_describe(stale)}); what it finished is kept"
                )
            _write(
                handle,
                {
                    "pid": os.getpid(),
                    "started": time.time(),
                    "command": " ".join(sys.argv)[:300],
                },
            )
        yield
    finally:
        for handle in held:
            _write(handle, None)  # a clean end leaves no record
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()


def _write(handle: IO[str], record: dict | None) -> None:
    if "+" not in handle.mode:
        return  # opened read-only
    handle.seek(0)
    handle.truncate()
    if record is not None:
        handle.write(json.dumps(record))
    handle.flush()
