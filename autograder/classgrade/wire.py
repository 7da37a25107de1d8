"""A job's outcome as plain JSON, and the schema the main process checks it against.

A cluster worker (:mod:`autograder.classgrade.remote`) returns what
:func:`~autograder.classgrade.worker.grade_job` made as JSON text, never a
pickle: unpickling runs code, and the main process would run it. The main
process reads that text with :func:`from_json`, which accepts exactly the
fields of :class:`~autograder.classgrade.store.Graded` with their types, for
the submission it sent, and nothing else; anything else is an error for that
submission (:class:`Malformed`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, fields
from typing import Any

from autograder.classgrade.reports import Result
from autograder.classgrade.store import Graded

#: The format's version: a worker with another one runs other code.
FORMAT = 1
#: A job's statuses (:mod:`autograder.classgrade.worker`).
STATUSES = ("graded", "unreadable", "wrong-lesson", "too-large", "error")
#: The most a result may hold (its notebook and page included).
MAX_BYTES = 64 * 1024 * 1024
#: Fields only the main process sets (from its gradebook, its own files, the
#: plan): a worker sends their defaults; ``release`` must be the job's rules.
MAIN_ONLY = (
    "feedback",
    "scores",
    "submitted_at",
    "seconds_late",
    "late_penalty",
    "gradebook_score",
    "extended_until",
    "hand_stale",
    "hand",
)


class Malformed(ValueError):
    """A worker's result that does not fit the schema."""


def to_json(graded: Graded, refused: str = "") -> str:
    """What a worker returns for one job; ``refused``: why this worker will
    grade nothing (it is unlike the main machine), which stops the batch."""
    return json.dumps(
        {
            "format": FORMAT,
            "result": asdict(graded.result),
            "notebook": graded.notebook,
            "page": graded.page,
            "refused": refused,
        },
        allow_nan=False,
    )


def _no_constant(name: str) -> None:
    raise Malformed(f"{name} is not a number JSON allows")


def _number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_field(name: str, value: Any) -> str:
    """Why ``value`` is not a valid ``Result.<name>`` ("" when it is)."""
    kinds = {
        "per_question": lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(k, str)
                and isinstance(p, list)
                and len(p) == 2
                and all(_number(x) for x in p)
                for k, p in v.items()
            )
        ),
        "hints": lambda v: (
            isinstance(v, dict)
            and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())
        ),
        "flags": _strings,
        "review": _strings,
        "manual": _strings,
        "gradebook_score": lambda v: v is None or _number(v),
        "hand": lambda v: v is None or _number(v),
        "hand_stale": lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(k, str) and isinstance(p, list) and all(map(_number, p))
                for k, p in v.items()
            )
        ),
    }
    floats = {f.name for f in fields(Result) if f.type in ("float", float)}
    if name in kinds:
        ok = kinds[name](value)
    elif name in floats:
        ok = _number(value)
    else:
        ok = isinstance(value, str)
    return "" if ok else f"result.{name} has the wrong type ({type(value).__name__})"


def from_json(
    text: Any, student: str, lesson: str, digest: str, rules: str
) -> tuple[Graded, str]:
    """The :class:`Graded` in a worker's ``text``, checked: every field of
    the schema with its type, for this submission (``student``, ``lesson``,
    ``digest``, graded under ``rules``), the fields only the main process sets
    left at their defaults; and why the worker refused to grade ("" when it
    did not).

    Raises:
        Malformed: naming the first thing that does not fit.
    """
    if not isinstance(text, str):
        raise Malformed(f"a {type(text).__name__}, not JSON text")
    if len(text) > MAX_BYTES:
        raise Malformed(f"{len(text):,} bytes, over the limit of {MAX_BYTES:,}")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise Malformed(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or set(data) != {
        "format",
        "result",
        "notebook",
        "page",
        "refused",
    }:
        raise Malformed("not a job's result (its keys differ)")
    if data["format"] != FORMAT:
        raise Malformed(
            f"format {data['format']!r}, not {FORMAT}: the worker runs another "
            "version of the course"
        )
    for key in ("notebook", "page", "refused"):
        if not isinstance(data[key], str):
            raise Malformed(f"{key} is not text")
    found = data["result"]
    names = {f.name for f in fields(Result)}
    if not isinstance(found, dict) or set(found) != names:
        extra = sorted(set(found) - names) if isinstance(found, dict) else []
        raise Malformed(f"result's fields differ from the schema {extra or ''}")
    for name, value in found.items():
        why = _check_field(name, value)
        if why:
            raise Malformed(why)
    if (found["student"], found["lesson"], found["digest"]) != (
        student,
        lesson,
        digest,
    ):
        raise Malformed(
            f"it is for {found['student']}/{found['lesson']}, not the submission sent"
        )
    default = Result(student, lesson, "error")
    for name in MAIN_ONLY:
        if found[name] != getattr(default, name):
            raise Malformed(f"result.{name} is the main process's to set")
    if found["release"] != rules:
        raise Malformed(
            f"it was graded under rules {found['release']!r}, not {rules!r}"
        )
    if found["status"] not in STATUSES:
        raise Malformed(f"unknown status {found['status']!r}")
    if data["notebook"]:
        try:
            if not isinstance(json.loads(data["notebook"]).get("cells"), list):
                raise ValueError
        except (ValueError, AttributeError):
            raise Malformed("its graded notebook is not a notebook") from None
    return Graded(Result(**found), data["notebook"], data["page"]), data["refused"]
