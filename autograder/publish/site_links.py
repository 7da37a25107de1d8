"""Links within the built website: each must lead to a page or file of the
build, and an anchor to an element of that page (``make site`` fails on one
that does not)."""

from __future__ import annotations

import re
from pathlib import Path

_HREF = re.compile(r"""(?:href|src)=["']([^"'#?]*)(#[^"']*)?["']""")
_ID = re.compile(r"""\bid=["']([^"']+)["']""")


def broken_links(out: Path) -> list[str]:
    """``page: link`` for each link between the built pages (or to a file in
    the build) that leads to no file, or to no element of the page it names."""
    ids: dict[Path, set[str]] = {}

    def anchors(page: Path) -> set[str]:
        if page not in ids:
            ids[page] = set(_ID.findall(page.read_text(encoding="utf-8")))
        return ids[page]

    found = []
    for page in sorted(out.rglob("*.html")):
        if "_static" in page.relative_to(out).parts:
            continue
        html = page.read_text(encoding="utf-8")
        for target, anchor in _HREF.findall(html):
            if re.match(r"^[a-z][a-z0-9+.-]*:|^//", target):
                continue  # another site, mailto:, data:
            path = (page.parent / target).resolve() if target else page
            if path.is_dir():
                path = path / "index.html"
            where = f"{page.relative_to(out)}: {target}{anchor}"
            if not path.is_file():
                found.append(where)
            elif anchor[1:] and path.suffix == ".html":
                if anchor[1:] not in anchors(path):
                    found.append(where)
    return found
