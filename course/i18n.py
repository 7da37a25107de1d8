"""Messages in the student's language: English, or a translation from the
course's gettext catalogs.

Every message a student reads from the course's checks is written in English
and looked up with :func:`_` (its English text is the msgid), in the compiled
catalogs that ship in the student wheel (``course/locale/<lang>/LC_MESSAGES/
course.mo``), read with the standard library's :mod:`gettext`. The language is
``COURSE_LANG`` (``zh``, ``zh_CN``; anything else, or nothing, is English); a
message the catalog lacks stays English.
"""

from __future__ import annotations

import functools
import gettext
import os
from pathlib import Path

LOCALE = Path(__file__).parent / "locale"
#: ``COURSE_LANG`` values, by the catalog they choose.
LANGUAGES = {"zh": "zh_CN", "zh_cn": "zh_CN", "zh-cn": "zh_CN"}


def language() -> str:
    """The catalog ``COURSE_LANG`` chooses, or ``"en"``."""
    return LANGUAGES.get(os.environ.get("COURSE_LANG", "").strip().lower(), "en")


@functools.lru_cache(maxsize=4)
def _translations(lang: str) -> gettext.NullTranslations:
    return gettext.translation("course", LOCALE, languages=[lang], fallback=True)


def _(message: str) -> str:
    """``message`` in the student's language."""
    lang = language()
    return message if lang == "en" else _translations(lang).gettext(message)


__all__ = ["LANGUAGES", "LOCALE", "language"]
