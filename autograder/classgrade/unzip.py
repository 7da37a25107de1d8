"""Unpacking a zip export safely: bounded, and one bad entry harms no other.

Limits on the number of entries and on each entry's and the total uncompressed
size, checked while streaming (a header may lie). Over the entry count or the
total, the whole zip is refused and nothing is left behind; one entry over the
size for one file, with a name marked UTF-8 that is not, an unsafe path, a link
or that is not a notebook, is skipped with the reason, and the rest is unpacked.
A backslash in an entry's name is a folder separator (Windows zip tools).

Student ids (:func:`student_id`) are Unicode-aware: NFC first, so that ``josé``
typed on a Mac (``e`` and a combining accent) is the same id as anywhere else.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import struct
import unicodedata
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
    """A file-system-safe student id made from a name.

    NFC first; then letters, accents and digits of any script and ``_ . @ -``
    are kept, and every run of anything else (a path separator, a space, a
    control or invisible formatting character) becomes one ``-``. No id starts
    or ends with ``-``, ``.`` or ``_``, so none is ``..`` or hidden.
    """
    text = unicodedata.normalize("NFC", text)
    kept = "".join(
        c if c in "_.@-" or unicodedata.category(c)[0] in "LMN" else "\0" for c in text
    )
    cleaned = re.sub("\0+", "-", kept).strip("-._")
    return cleaned[:80].rstrip("-._")


def written_apart(*names: str) -> str:
    """When ``names`` differ but are equal once NFC-normalised, a note that
    shows how each is encoded; otherwise ""."""
    if len(set(names)) < 2 or len({unicodedata.normalize("NFC", n) for n in names}) > 1:
        return ""
    return (
        "; the names differ only in how their accented letters are encoded "
        f"(Unicode NFC and NFD, as a Mac writes them: {', '.join(map(ascii, names))})"
    )


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

    Names are cleaned (``\\`` is a separator too); two entries that land on
    the same file are both kept out and reported. An entry with an absolute
    path or ``..``, a symbolic link (never read: its target is not quoted
    either), a hidden file, one over ``max_entry``, with a name marked UTF-8
    that is not, or that is not a notebook, is skipped and reported
    (``skipped`` gets ``"name (why)"``); the rest is unpacked. Only folders and
    what zip tools add on their own (:func:`_junk`) are left out silently.
    Each entry's date goes into ``times`` (unpacked path -> ISO text). A zip
    stores no time zone: the date is read as UTC.

    Raises:
        IntakeError: not a zip, or over the entry count or the total size
            (``target`` is then removed).
    """
    problems: list[str] = []
    zf, reader = _open_zip(archive)
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zf:
            # a folder's own entry ("carol/", "carol\\") holds nothing: not listed
            entries = [i for i in zf.infolist() if not _parts(i.filename)[1]]
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
                parts, _ = _parts(info.filename)
                why = _unsafe(info.filename, parts)
                if why is None and _junk(parts):
                    continue  # macOS's ._ files and __MACOSX/, .DS_Store...
                why = why or _not_a_file(info, parts)
                if why is not None:
                    _skip(problems, skipped, name, why)
                    continue
                out = _safe_target(parts, name, target, problems)
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
                        + written_apart(name, shown(taken[out]))
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


def _parts(name: str) -> tuple[list[str], bool]:
    """An entry name's parts, ``\\`` a separator as ``/`` is (a Windows zip
    tool writes ``carol\\carol_01_devices.ipynb``); and whether it names a
    folder (it ends with a separator)."""
    name = name.replace("\\", "/")
    return [p for p in name.split("/") if p not in ("", ".")], name.endswith("/")


def _junk(parts: list[str]) -> bool:
    """What zip tools and file managers add on their own, left out silently:
    macOS's ``__MACOSX/``, ``._*`` and ``.DS_Store``, and hidden folders
    (``.ipynb_checkpoints/``, ``.git/``). A hidden file is not junk: it is
    skipped with a line (:func:`_not_a_file`)."""
    name, folders = parts[-1], parts[:-1]
    return (
        "__MACOSX" in parts
        or any(p.startswith(".") for p in folders)
        or name == ".DS_Store"
        or name.startswith("._")
    )


def _unsafe(name: str, parts: list[str]) -> str | None:
    """Why an entry's path is refused: it climbs out, starts at a root (``/``,
    ``C:``) or names no file."""
    rooted = name.replace("\\", "/").startswith("/")
    if ".." in parts or rooted or re.match(r"[A-Za-z]:", parts[0] if parts else ""):
        return (
            "unsafe path in the zip (it starts at / or at a drive, or climbs out "
            "with ..); nothing was written outside the unpacked folder. Ask for "
            "the file again, zipped from inside the student's folder"
        )
    return None if parts else "the entry has no file name; ask for it again"


def _not_a_file(info: zipfile.ZipInfo, parts: list[str]) -> str | None:
    """Why an entry is not unpacked as a file: a link (what it points to is
    never read, nor quoted), a device or pipe, or a hidden file."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        return (
            "a symbolic link, not a file: what it points to is not read; ask "
            "for the notebook itself (zip without -y / --symlinks)"
        )
    if kind not in (0, stat.S_IFREG):
        return "not a regular file (a folder, device or pipe); it is not read"
    if parts[-1].startswith("."):
        return (
            "a hidden file (its name starts with a dot); if it is a submission, "
            "rename it without the dot and zip it again"
        )
    return None


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


def _safe_target(
    parts: list[str], name: str, target: Path, problems: list[str]
) -> Path:
    """Where a safe entry (:func:`_unsafe`) is unpacked: each part cleaned as
    a student id is; a file name changed by more than NFC is reported."""
    safe = [student_id(p) or "unnamed" for p in parts[:-1]]
    stem, suffix = os.path.splitext(parts[-1])
    safe.append((student_id(stem) or "unnamed") + suffix.lower())
    if safe[-1] != unicodedata.normalize("NFC", parts[-1]):
        problems.append(f"{name!r}: renamed to {safe[-1]}")
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
