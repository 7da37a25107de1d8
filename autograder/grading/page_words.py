"""The feedback page's own words in the graded notebook's language.

nbgrader's feedback template writes its labels in English ("Test cell",
"Score: ", "Comments:"...). :func:`in_language` puts the catalog's words in
their place where the notebook is a translated edition's
(:func:`course.i18n.use_language`); an English page is left as it is. The
words the course adds itself (an extension's line, the note where hidden tests
ran) are written with ``say`` where they are made.
"""

from __future__ import annotations

import re

from course.i18n import _, language


def _words() -> list[tuple[str, str]]:
    """(what the template writes, what the page shows), in the current language."""
    pairs = [
        (">Test cell</a>", ">" + _("Test cell") + "</a>"),
        (">Coding free-response</a>", ">" + _("Coding free-response") + "</a>"),
        (">Written response</a>", ">" + _("Written response") + "</a>"),
        (">Task</a>", ">" + _("Task") + "</a>"),
        (">Comment</a>", ">" + _("Comment") + "</a>"),
        ("Late submission penalty (", _("Late submission penalty") + " ("),
        ('<a href="#top">(Top)</a>', '<a href="#top">(' + _("Top") + ")</a>"),
        (">Student's answer</span>", ">" + _("Student's answer") + "</span>"),
        (">Student's task</span>", ">" + _("Student's task") + "</span>"),
        (">Grade cell: <code>", ">" + _("Grade cell: ") + "<code>"),
        (">Task: <code>", ">" + _("Task: ") + "<code>"),
        ("<b>Comments:</b>", "<b>" + _("Comments:") + "</b>"),
    ]
    return pairs


_SCORE = re.compile(r"(?<=[\s(])Score: ")


def in_language(html: str) -> str:
    """A feedback page with nbgrader's labels in the current language."""
    if language() == "en":
        return html
    for english, shown in _words():
        html = html.replace(english, shown)
    return _SCORE.sub(_("Score: ").replace("\\", "\\\\"), html)


__all__ = ["in_language"]
