"""Progress of a class run: a bar on a terminal, one line per submission otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any

from autograder.classgrade.reports import Result


class Progress:
    """Counts finished submissions and shows how many are left, and how long."""

    def __init__(self, total: int, stream: Any = None, enabled: bool = True) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.finished: set[tuple[str, str]] = set()  # (student, lesson) counted
        self.stream = stream or sys.stderr
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.start = time.perf_counter()
        #: what the workers are doing, for the line (a cluster's: "2 of 3 busy")
        self.busy: Any = None

    def say(self, lines: list[str]) -> None:
        """Lines to show before the first result (the due dates, say)."""
        if self.enabled and lines:
            self.stream.write("".join(f"{line}\n" for line in lines))
            self.stream.flush()

    def update(self, result: Result) -> None:
        """Count one finished submission and redraw."""
        self.done += 1
        self.failed += result.status != "graded"
        self.finished.add((result.student, result.lesson))
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        left = elapsed / self.done * (self.total - self.done)
        text = (
            f"{self.done}/{self.total} graded, {self.failed} failed, "
            f"about {left:.0f} s left"
        )
        if self.busy is not None:
            text += f", {self.busy()}"
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            bar = "#" * filled + "-" * (width - filled)
            self.stream.write(f"\r[{bar}] {text}")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            stale = " (a hand grade to look at again)" if result.hand_stale else ""
            self.stream.write(
                f"{text}: {result.student}/{result.lesson} "
                f"{result.status} {result.final:g}/{result.max_score:g}{stale}\n"
            )
        self.stream.flush()
