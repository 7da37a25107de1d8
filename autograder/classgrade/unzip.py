"""Unpacking a zip export safely: bounded, and one bad entry harms no other.

Limits on the number of entries and on each entry's and the total uncompressed
size, checked while streaming (a header may lie). Over the entry count or the
total, the whole zip is refused and nothing is left behind; one entry over the
size for one file, with a name marked UTF-8 that is not, or that is not a
notebook, is skipped with the reason, and the rest is unpacked.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import zipfile
import zlib
from datetime import datetime, timezone
from pathlib import Path

#: Limits for unpacking a zip export (bytes, bytes, entries).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
MAX_ENTRIES = 20_000
_CHUNK = 1024 * 1024


class IntakeError(ValueError):
    """The source cannot be read at all (one line, for the command line)."""


class _TooLarge(Exception):
    """One zip entry unpacks to more than the limit for one file."""

    def __init__(self, written: int) -> None:
        super().__init__(written)
        self.written = written


def student_id(text: str) -> str:
    """A file-system-safe student id made from a name."""
    cleaned = re.sub(r"[^A-Za-z0-9._@-]+", "-", text).strip("-._")
    return cleaned[:80]


def shown(name: str) -> str:
    """A file name as printable text (bytes that are not UTF-8 as ``\\xNN``)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class _UnmarkedNames:
    """A zip file read with the UTF-8 mark taken off the names that are not
    UTF-8, so that :mod:`zipfile` lists the archive instead of refusing it all.

    ``names`` maps each such entry's name as :mod:`zipfile` then reads it to
    the name as printable text.
    """

    def __init__(self, path: Path) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 - closed by extract_zip
        self.spots: list[int] = []
        self.names: dict[str, str] = {}
        endrec = zipfile._EndRecData(self._file)
        if endrec is None:
            raise zipfile.BadZipFile("no central directory")
        size = endrec[zipfile._ECD_SIZE]
        start = endrec[zipfile._ECD_LOCATION] - size
        if endrec[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:
            start -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator
        self._file.seek(start)
        data, pos = self._file.read(size), 0
        while data[pos : pos + 4] == b"PK\x01\x02" and pos + 46 <= len(data):
            (flags,) = struct.unpack_from("<H", data, pos + 8)
            lengths = struct.unpack_from("<3H", data, pos + 28)
            raw = data[pos + 46 : pos + 46 + lengths[0]]
            if flags & 0x800 and not _is_utf8(raw):
                self.spots.append(start + pos + 9)  # the flag's high byte
                self.names[raw.decode("cp437")] = shown(os.fsdecode(raw))
            pos += 46 + sum(lengths)

    def read(self, size: int = -1) -> bytes:
        at = self._file.tell()
        data = self._file.read(size)
        hits = [s - at for s in self.spots if at <= s < at + len(data)]
        if not hits:
            return data
        patched = bytearray(data)
        for hit in hits:
            patched[hit] &= 0xF7  # bit 11 of the flags: "the name is UTF-8"
        return bytes(patched)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def seekable(self) -> bool:
        return True

    def close(self) -> None:
        self._file.close()


def _open_zip(archive: Path) -> tuple[zipfile.ZipFile, _UnmarkedNames | None]:
    try:
        return zipfile.ZipFile(archive), None
    except UnicodeDecodeError:  # a name marked UTF-8 that is not
        pass
    except (zipfile.BadZipFile, OSError) as exc:
        raise IntakeError(f"{archive}: not a readable zip file ({exc})") from None
    reader = None
    try:
        reader = _UnmarkedNames(archive)
        return zipfile.ZipFile(reader), reader  # type: ignore[arg-type]
    except (zipfile.BadZipFile, OSError, ValueError, struct.error) as exc:
        if reader is not None:
            reader.close()
        raise IntakeError(f"{archive}: not a readable zip file ({exc})") from None


def _skip(problems: list[str], skipped: list[str] | None, name: str, why: str) -> None:
    problems.append(f"{name}: skipped, {why}")
    if skipped is not None:
        skipped.append(f"{name} ({why.split(';')[0]})")


def extract_zip(
    archive: Path,
    target: Path,
    *,
    max_entry: int = MAX_ENTRY_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
    max_entries: int = MAX_ENTRIES,
    times: dict[Path, str] | None = None,
    skipped: list[str] | None = None,
) -> list[str]:
    """Unpack ``archive`` into ``target`` safely; return the problems found.

    Entries with absolute paths or ``..`` are skipped; names are cleaned; two
    entries that land on the same file are both kept out and reported. One
    entry over ``max_entry``, with a name marked UTF-8 that is not, or that is
    not a notebook, is skipped and reported (``skipped`` gets ``"name (why)"``);
    the rest is unpacked. Each entry's date goes into ``times`` (unpacked path
    -> ISO text). A zip stores no time zone: the date is read as UTC.

    Raises:
        IntakeError: not a zip, or over the entry count or the total size
            (``target`` is then removed).
    """
    problems: list[str] = []
    zf, reader = _open_zip(archive)
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
                name = shown(info.filename)
                if reader is not None and info.orig_filename in reader.names:
                    _skip(
                        problems,
                        skipped,
                        reader.names[info.orig_filename],
                        "its name is marked as UTF-8 but is not valid UTF-8 (an old "
                        "zip tool?); rename the file and zip it again",
                    )
                    continue
                if _junk(info.filename):
                    continue
                out = _safe_target(info.filename, target, problems)
                if out is None:
                    continue
                if out.suffix != ".ipynb" and out.name != "timestamp.txt":
                    _skip(problems, skipped, name, "not a notebook (.ipynb)")
                    continue
                if info.file_size > max_entry:
                    _skip(
                        problems,
                        skipped,
                        name,
                        f"{info.file_size:,} bytes unpacked, more than the "
                        f"{max_entry:,} allowed for one file; if it is genuine, "
                        "unzip the export and grade the folder",
                    )
                    continue
                if out in taken:
                    if skipped is not None:
                        first = [] if out in clashes else [shown(taken[out])]
                        skipped += [f"{n} (conflict)" for n in [*first, name]]
                    clashes.add(out)
                    problems.append(
                        f"conflict: {name!r} and {shown(taken[out])!r} unpack to "
                        "the same file; neither is graded (rename one)"
                    )
                    continue
                taken[out] = info.filename
                why = None
                try:
                    total += _copy_entry(zf, info, out, max_entry, max_total - total)
                except _TooLarge as big:  # its size in the header was a lie
                    total += big.written  # unpacking it was work all the same
                    why = (
                        f"unpacks to more than the {max_entry:,} bytes allowed "
                        "for one file (a zip bomb?); ask for the file again"
                    )
                except (
                    zipfile.BadZipFile,
                    zlib.error,
                    EOFError,
                    RuntimeError,
                    NotImplementedError,
                ) as exc:  # corrupt, encrypted, unknown
                    why = f"cannot be unpacked ({exc}); ask for the file again"
                if why is not None:
                    out.unlink(missing_ok=True)
                    del taken[out]
                    _skip(problems, skipped, name, why)
                    continue
                if times is not None:
                    times[out] = _zip_time(info)
            for out in clashes:
                out.unlink(missing_ok=True)
    except IntakeError:
        shutil.rmtree(target, ignore_errors=True)
        raise
    finally:
        if reader is not None:
            reader.close()
    return problems


def _junk(name: str) -> bool:
    """What zip tools add on their own (macOS's resource forks, hidden files)."""
    parts = Path(name).parts
    return "__MACOSX" in parts or any(p.startswith(".") and p != ".." for p in parts)


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
    """Stream one entry to ``out``; return its size.

    Raises:
        _TooLarge: over ``max_entry`` (this entry only).
        IntakeError: over what is ``left`` for the whole zip.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(info) as src, open(out, "wb") as dst:
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            if written > left:
                raise IntakeError(
                    f"{shown(info.filename)}: unpacks to more than the limit for "
                    "the whole zip (a zip bomb?); nothing was graded. Split the "
                    "export into smaller zips"
                )
            if written > max_entry:
                raise _TooLarge(written)
            dst.write(chunk)
    return written
