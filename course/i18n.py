"""Messages in the student's language: English, or a translation from the
course's gettext catalogs.

Every message a student reads from the course's checks is written in English
and looked up with :func:`_` (its English text is the msgid), in the compiled
catalogs that ship in the student wheel (``course/locale/<lang>/LC_MESSAGES/
course.mo``), read with the standard library's :mod:`gettext`. A message the
catalog lacks stays English.

The language (:func:`language`), first found of:

1. :func:`use_language`, in this thread of work (the grader sets it to the
   language of the notebook it grades);
2. ``COURSE_LANG`` (``zh``, ``zh_CN``; any other value means English);
3. the notebook's own language: Jupyter tells its kernel which notebook it
   runs (``JPY_SESSION_NAME``; on Colab, the page is asked for its notebook
   once), and the Chinese edition's notebooks say ``"lang": "zh_CN"`` in
   their ``course`` metadata;
4. English.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import json
import os
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

LOCALE = Path(__file__).parent / "locale"
#: ``COURSE_LANG`` values, by the catalog they choose.
LANGUAGES = {"zh": "zh_CN", "zh_cn": "zh_CN", "zh-cn": "zh_CN"}
_CHOSEN: ContextVar[str | None] = ContextVar("course_language", default=None)


def _catalog_of(value: Any) -> str:
    text = str(value or "").strip().lower()
    return LANGUAGES.get(text, "en")


def notebook_language(nb: Any) -> str:
    """The language a notebook (parsed JSON, or an nbformat node) is written
    in: its ``course`` metadata's ``lang``, or its release stamp's; else
    ``"en"``."""
    try:
        meta = nb["metadata"].get("course") or {}
        stamp = meta.get("release") or {}
        return _catalog_of(meta.get("lang") or stamp.get("lang"))
    except (AttributeError, KeyError, TypeError):
        return "en"


@functools.lru_cache(maxsize=8)
def _language_of_file(path: str, mtime: float) -> str:
    try:
        return notebook_language(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return "en"


_COLAB: list[str] = []  # the language the Colab page gave, once it answered
_LAST = ["en"]  # the last language a notebook named, for when it cannot be read


def _colab_language() -> str:
    """On Colab (which sets no ``JPY_SESSION_NAME``), the open notebook's
    language, asked of the page until it answers once."""
    if not _COLAB:
        try:
            from google.colab import _message  # type: ignore[import-not-found]

            reply = _message.blocking_request("get_ipynb", timeout_sec=10)
            _COLAB.append(notebook_language(reply["ipynb"]))
        except Exception:  # noqa: BLE001 - no answer this time: English
            return "en"
    return _COLAB[0]


def _session_language() -> str:
    """The language of the notebook Jupyter says this kernel runs; where the
    file cannot be read now (renamed, or the folder gone), the last one read."""
    name = os.environ.get("JPY_SESSION_NAME", "")
    if not name.endswith(".ipynb"):
        return _colab_language() if "google.colab" in sys.modules else "en"
    try:
        candidates = [Path(name), Path.cwd() / Path(name).name]
    except OSError:  # the working folder was removed
        candidates = [Path(name)]
    for path in candidates:
        try:
            _LAST[0] = _language_of_file(str(path), path.stat().st_mtime)
            return _LAST[0]
        except OSError:
            continue
    return _LAST[0]


def language() -> str:
    """The catalog messages are read from now, or ``"en"`` (see the module)."""
    chosen = _CHOSEN.get()
    if chosen is not None:
        return chosen
    if os.environ.get("COURSE_LANG", "").strip():
        return _catalog_of(os.environ["COURSE_LANG"])
    return _session_language()


@contextlib.contextmanager
def use_language(lang: str) -> Iterator[str]:
    """Messages in ``lang`` (``"en"``, ``"zh_CN"``, ``"zh"``) inside the block."""
    token = _CHOSEN.set("en" if lang == "en" else _catalog_of(lang))
    try:
        yield _CHOSEN.get() or "en"
    finally:
        _CHOSEN.reset(token)


@functools.lru_cache(maxsize=4)
def _translations(lang: str) -> gettext.NullTranslations:
    return gettext.translation("course", LOCALE, languages=[lang], fallback=True)


def _(message: str) -> str:
    """``message`` in the student's language."""
    lang = language()
    return message if lang == "en" else _translations(lang).gettext(message)


def N_(message: str) -> str:
    """``message`` as it is, marked for the catalogs: a constant kept in
    English and translated where it is shown (``_(CONSTANT)``)."""
    return message


def say(template: str, **fields: Any) -> str:
    """``template`` in the student's language, its ``{fields}`` filled
    (``str.format``): the English template is the catalog's msgid."""
    return _(template).format(**fields)


__all__ = [
    "LANGUAGES",
    "LOCALE",
    "N_",
    "language",
    "notebook_language",
    "say",
    "use_language",
]
