"""The course's diagrams, drawn for it as SVG, shown with their alt text.

``diagram("async_timeline")`` shows ``course/figures/async_timeline.svg`` as an
HTML figure (the image, its alt text and a caption). The figures ship inside
this library, so a diagram shows wherever the library is installed: in Jupyter,
on Colab (the notebook's setup cell installs the library, figures included),
on the course site, and in a graded notebook. Run as a script, a lesson prints
the diagram's title and description instead.

Each SVG carries its own ``<title>`` and ``<desc>``: the caption and the alt
text come from there, so the words and the picture are kept in one file; the
Chinese edition reads their translations from the course's message catalog.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

from course.i18n import _

FIGURES = Path(__file__).with_name("figures")
#: The diagrams, by name: ``FIGURES / f"{name}.svg"``.
NAMES = ("host_device", "async_timeline", "grid_blocks_threads", "copy_streams")


def diagram_path(name: str) -> Path:
    """The SVG file of diagram ``name``.

    Raises:
        ValueError: no diagram has that name.
    """
    if name not in NAMES:
        raise ValueError(f"no diagram named {name!r}; the diagrams: {', '.join(NAMES)}")
    return FIGURES / f"{name}.svg"


def _element(svg: str, tag: str) -> str:
    found = re.search(rf"<{tag}[^>]*>(.*?)</{tag}>", svg, re.DOTALL)
    return " ".join(html.unescape(found.group(1)).split()) if found else ""


def source_text(name: str) -> tuple[str, str]:
    """(title, description) of diagram ``name`` as its SVG writes them."""
    svg = diagram_path(name).read_text(encoding="utf-8")
    return _element(svg, "title"), _element(svg, "desc")


def describe(name: str) -> tuple[str, str]:
    """(title, description) of diagram ``name`` in the student's language
    (:mod:`course.i18n`: the SVG's English text is the catalog's msgid)."""
    return tuple(_(text) if text else text for text in source_text(name))


def figure_html(name: str) -> str:
    """The diagram as an HTML figure: the SVG inline as an image, with its
    description as alt text and its title as caption."""
    title, desc = describe(name)
    data = base64.b64encode(diagram_path(name).read_bytes()).decode("ascii")
    return (
        f'<figure style="margin: 0.5em 0"><img src="data:image/svg+xml;base64,{data}" '
        f'alt="{html.escape(desc)}" style="max-width: 100%">'
        f"<figcaption><em>{html.escape(title)}</em></figcaption></figure>"
    )


def diagram(name: str) -> None:
    """Show diagram ``name``: as a figure in a notebook, as text elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:  # no IPython at all: a plain script
        get_ipython = None  # noqa: N806 - the same name either way
    if get_ipython is not None and get_ipython() is not None:
        display(HTML(figure_html(name)))
        return
    title, desc = describe(name)
    print(f"[diagram: {title}]\n{desc}")


__all__ = ["FIGURES", "NAMES", "describe", "diagram", "diagram_path", "figure_html"]
