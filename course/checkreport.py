"""What a :func:`course.racecheck.race_check` block saw, and what each launch
in it wrote into its array arguments.

The race checker records every element each thread wrote; :func:`outputs`
turns that record into the values a launch left in each array argument, NaN
where no thread wrote, so a test can judge the kernel's own work apart from
what the host did to the array before or after (:meth:`CheckReport.written`).
In grading the store keeps the same for each launch it ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class CheckReport:
    """What a :func:`race_check` block saw: launches, blocks, recorded accesses,
    and what each launch wrote into its array arguments (:meth:`written`)."""

    launches: int = 0
    blocks: int = 0
    accesses: int = 0
    barriers: int = 0
    #: per launch, per argument: the values the kernel wrote (NaN where it
    #: wrote nothing), or None for an argument that is not an array
    outputs: list[list[Any]] = field(default_factory=list, repr=False)

    def written(self, argument: int, launch: int = -1) -> np.ndarray:
        """What launch ``launch`` (the last by default) wrote into its array
        argument number ``argument`` (from 0), as float64: NaN where the kernel
        wrote nothing. What the host did to the array before or after does not
        show here."""
        if not self.outputs:
            raise ValueError("no kernel was launched in this block")
        found = self.outputs[launch]
        if found is None:
            raise ValueError(
                "this launch is older than the last ones the simulated GPU keeps "
                "(64): check it in a block of its own"
            )
        if not 0 <= argument < len(found) or found[argument] is None:
            raise ValueError(
                f"argument {argument} of the launch is not an array the kernel "
                f"was given (it took {len(found)} arguments)"
            )
        return np.array(found[argument], dtype=np.float64, copy=True)


def wrote(tracker: Any, values: Any) -> np.ndarray:
    """``values`` as float64, NaN where ``tracker`` saw no write."""
    out = np.array(values, dtype=np.float64, copy=True).reshape(-1)
    mask = np.ones(out.size, dtype=bool)
    done = [e for e, w in tracker.writes.items() if w and 0 <= e < out.size]
    mask[done] = False
    out[mask] = np.nan
    return out.reshape(np.shape(values))


def outputs(args: tuple, trackers: list[Any]) -> list[Any]:
    """What one launch wrote, per argument (see :attr:`CheckReport.outputs`):
    numba wraps each array argument in turn, so trackers follow the arrays."""
    found: list[Any] = []
    left = list(trackers)
    for value in args:
        array = isinstance(value, np.ndarray) and value.ndim > 0
        hint = type(value).__name__ in ("In", "Out", "InOut")  # cuda.In(x)...
        if hint or isinstance(value, np.void):  # wrapped too: a tracker each
            value = getattr(value, "value", value)
            array = True
        if (array or hasattr(value, "_ary")) and left:
            tracker = left.pop(0)
            data = getattr(tracker, "item", None)
            data = getattr(data, "_ary", value)
            try:
                found.append(wrote(tracker, np.asarray(data)))
            except (TypeError, ValueError):  # records, say: not numbers
                found.append(None)
        else:
            found.append(None)
    return found


__all__ = ["CheckReport", "outputs", "wrote"]
