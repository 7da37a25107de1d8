"""Intake: find the submissions to grade, without one student's file harming another.

``SOURCE`` may be

* an nbgrader layout, ``submitted/<student>/<assignment>/<assignment>.ipynb``
  (SOURCE holds ``submitted/``, or is it): the notebook the gradebook names is
  graded; stray extra copies in the folder are listed and left alone;
* a folder of loose notebooks, as a learning platform exports them: the student
  id is the file name without the assignment name, or comes from ``--map``;
* a ``.zip`` of either, unpacked as a stream with limits on the number of
  entries and on each entry's and the total uncompressed size: a zip bomb is
  refused with a clear message, in bounded memory, and leaves nothing behind.

Two files that map to the same student and assignment (``alice_01_devices``
and ``alice__01_devices``, ``.IPYNB`` beside ``.ipynb``) are a conflict for the
instructor to resolve: neither is graded, and both are listed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from autograder.late import parse_time, read_timestamp
from autograder.lessons import lesson_names

#: Limits for unpacking a zip export (bytes, bytes, entries).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
MAX_ENTRIES = 20_000
_CHUNK = 1024 * 1024


class IntakeError(ValueError):
    """The source cannot be read at all (one line, for the command line)."""


@dataclass(frozen=True)
class Submission:
    """One notebook to grade."""

    student: str
    lesson: str
    path: Path
    digest: str
    submitted_at: str = ""  # ISO, UTC; "" when unknown (counted on time)


@dataclass
class Intake:
    """What was found: submissions to grade, and problems to report."""

    submissions: list[Submission] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def digest(path: Path) -> str:
    """SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def student_id(text: str) -> str:
    """A file-system-safe student id made from a name."""
    cleaned = re.sub(r"[^A-Za-z0-9._@-]+", "-", text).strip("-._")
    return cleaned[:80]


def shown(name: str) -> str:
    """A file name as printable text (bytes that are not UTF-8 as ``\\xNN``)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def extract_zip(
    archive: Path,
    target: Path,
    *,
    max_entry: int = MAX_ENTRY_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
    max_entries: int = MAX_ENTRIES,
    times: dict[Path, str] | None = None,
) -> list[str]:
    """Unpack ``archive`` into ``target`` safely; return the problems found.

    Entries with absolute paths or ``..`` are skipped; names are cleaned; two
    entries that land on the same file are both kept out and reported. Each
    entry's date goes into ``times`` (unpacked path -> ISO text). A zip stores
    no time zone: the date is read as UTC.

    Raises:
        IntakeError: not a zip, or over a limit (``target`` is then removed).
    """
    problems: list[str] = []
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise IntakeError(f"{archive}: not a readable zip file ({exc})") from None
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zf:
            entries = [i for i in zf.infolist() if not i.is_dir()]
            if len(entries) > max_entries:
                raise IntakeError(
                    f"{archive.name}: {len(entries):,} entries, more than the "
                    f"{max_entries:,} allowed; split the export"
                )
            taken: dict[Path, str] = {}
            clashes: set[Path] = set()
            total = 0
            for info in entries:
                out = _safe_target(info.filename, target, problems)
                if out is None:
                    continue
                if out in taken:
                    clashes.add(out)
                    problems.append(
                        f"conflict: {shown(info.filename)!r} and "
                        f"{shown(taken[out])!r} unpack to the same file; neither "
                        "is graded (rename one)"
                    )
                    continue
                taken[out] = info.filename
                total += _copy_entry(zf, info, out, max_entry, max_total - total)
                if times is not None:
                    times[out] = _zip_time(info)
            for out in clashes:
                out.unlink(missing_ok=True)
    except IntakeError:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return problems


def _zip_time(info: zipfile.ZipInfo) -> str:
    """A zip entry's date as ISO text, in UTC.

    The entry's "extended timestamp" (extra field 0x5455, Unix time, UTC) when
    the zip has one; otherwise its DOS date, which is the zipping machine's
    local time with no zone, and is taken as UTC.
    """
    extra = info.extra
    while len(extra) >= 4:
        tag, size = (
            int.from_bytes(extra[:2], "little"),
            int.from_bytes(extra[2:4], "little"),
        )
        body = extra[4 : 4 + size]
        if tag == 0x5455 and len(body) >= 5 and body[0] & 1:
            seconds = int.from_bytes(body[1:5], "little", signed=True)
            stamp = datetime.fromtimestamp(seconds, timezone.utc)
            return stamp.replace(tzinfo=None).isoformat()
        extra = extra[4 + size :]
    try:
        return datetime(*info.date_time).isoformat()
    except ValueError:
        return ""


def _safe_target(name: str, target: Path, problems: list[str]) -> Path | None:
    parts = [p for p in Path(name).parts if p not in ("", ".")]
    if not parts:
        return None
    if ".." in parts or Path(name).is_absolute():
        problems.append(f"{shown(name)}: unsafe path in the zip, skipped")
        return None
    safe = [student_id(p) or "unnamed" for p in parts[:-1]]
    stem, suffix = os.path.splitext(parts[-1])
    safe.append((student_id(stem) or "unnamed") + suffix.lower())
    if safe[-1] != parts[-1]:
        problems.append(f"{shown(name)!r}: renamed to {safe[-1]}")
    return target.joinpath(*safe)


def _copy_entry(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, out: Path, max_entry: int, left: int
) -> int:
    """Stream one entry to ``out``; return its size. Raises IntakeError on a limit."""
    if info.file_size > max_entry:
        raise IntakeError(
            f"{shown(info.filename)}: {info.file_size:,} bytes unpacked, more than "
            f"the {max_entry:,} allowed for one file (a zip bomb?)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(info) as src, open(out, "wb") as dst:
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            if written > max_entry or written > left:
                what = "one file" if written > max_entry else "the whole zip"
                raise IntakeError(
                    f"{shown(info.filename)}: unpacks to more than the limit for "
                    f"{what} (a zip bomb?); nothing was graded"
                )
            dst.write(chunk)
    return written


def _nbgrader_layout(source: Path, lesson: str | None) -> Intake | None:
    """Submissions of an nbgrader ``submitted/`` folder, or None if it is not one."""
    known = set(lesson_names())
    folders = [p for p in sorted(source.glob("*/*")) if p.is_dir()]
    if not folders or not all(p.name in known for p in folders):
        return None
    found = Intake()
    for folder in folders:
        if lesson and folder.name != lesson:
            continue
        student = folder.parent.name
        if shown(student) != student:
            found.problems.append(
                f"{shown(student)}: folder name is not valid UTF-8, graded as "
                f"{student_id(shown(student))}"
            )
            student = student_id(shown(student))
        notebook = folder / f"{folder.name}.ipynb"
        for stray in sorted(folder.glob("*.ipynb")):
            if stray != notebook:
                found.problems.append(
                    f"{student}/{folder.name}: extra file {shown(stray.name)} "
                    f"ignored (the graded notebook is {notebook.name})"
                )
        if notebook.is_file():
            when, problem = read_timestamp(folder)
            if problem:
                found.problems.append(problem)
            found.submissions.append(
                Submission(student, folder.name, notebook, digest(notebook), when)
            )
        else:
            found.problems.append(f"{student}/{folder.name}: no {notebook.name}")
    return found


def _loose_files(
    source: Path,
    only: str | None,
    name_map: dict[str, str] | None,
    times: dict[str, str],
    zip_times: dict[Path, str],
) -> Intake:
    found = Intake()
    known = lesson_names()
    claims: dict[tuple[str, str], list[Path]] = {}
    paths = [p for p in sorted(source.rglob("*")) if p.suffix.lower() == ".ipynb"]
    for path in paths:
        if ".ipynb_checkpoints" in path.parts or not path.is_file():
            continue
        lesson = only or next((n for n in known if n in path.name), None)
        name = shown(path.name)
        if lesson is None:
            found.problems.append(f"{name}: cannot tell the lesson, use --lesson")
            continue
        if name_map is not None and path.name in name_map:
            student = student_id(name_map[path.name])
        else:
            student = student_id(path.stem.replace(lesson, ""))
        if not student:
            found.problems.append(f"{name}: cannot tell the student from the file name")
            continue
        if name != path.name:
            found.problems.append(
                f"{name}: file name is not valid UTF-8, graded as {student}"
            )
        claims.setdefault((student, lesson), []).append(path)
    for (student, lesson), files in claims.items():
        if len(files) > 1:
            names = ", ".join(shown(str(p.relative_to(source))) for p in files)
            found.problems.append(
                f"conflict: {names} are all {student}/{lesson}; none is graded. "
                "Rename them, or give each its student with --map"
            )
            continue
        path = files[0]
        when = times.get(path.name) or zip_times.get(path, "")
        if when:
            try:
                when = parse_time(when).isoformat()
            except ValueError as exc:
                found.problems.append(f"{shown(path.name)}: {exc}; counted on time")
                when = ""
        found.submissions.append(Submission(student, lesson, path, digest(path), when))
    return found


def collect_submissions(
    source: Path,
    lesson: str | None,
    workdir: Path,
    name_map: dict[str, str] | None = None,
    times: dict[str, str] | None = None,
) -> tuple[list[Submission], list[str]]:
    """Find the submissions in ``source``; return them and the problems found.

    ``times`` gives loose files their submission time by file name (the
    ``submitted_at`` column of ``--map``); it wins over a zip entry's date.

    Raises:
        IntakeError: ``source`` does not exist or is a broken or oversized zip.
    """
    source = Path(source)
    problems: list[str] = []
    zip_times: dict[Path, str] = {}
    if not source.exists():
        raise IntakeError(f"{source} does not exist")
    if source.is_file() and source.suffix.lower() == ".zip":
        unpacked = workdir / "unzipped"
        shutil.rmtree(unpacked, ignore_errors=True)
        problems += extract_zip(source, unpacked, times=zip_times)
        source = unpacked
    if (source / "submitted").is_dir():
        source = source / "submitted"
    layout = _nbgrader_layout(source, lesson)
    found = layout or _loose_files(source, lesson, name_map, times or {}, zip_times)
    from_zip = [
        s
        for s in found.submissions
        if layout is None and s.path in zip_times and s.path.name not in (times or {})
    ]
    if from_zip:
        problems.append(
            f"{len(from_zip)} submission time(s) taken from the zip's file dates "
            "(the time each file was last changed, read as UTC when the zip does "
            "not say); for exact times give --map a submitted_at column"
        )
    return found.submissions, problems + found.problems
