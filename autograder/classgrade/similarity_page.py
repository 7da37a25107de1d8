"""``similarity.html``: the pairs ``course similarity`` ranked, the lesson's
first, then each answer cell's, with the two answers side by side and what
they share marked."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
td, th { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: left; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
mark { background: #ffd27f; }
h3 { margin-top: 1.6em; }
"""


def write_page(report: Any, path: Path, top: int = 20) -> None:
    """Write the report: the ``top`` pairs of the lesson and of each cell."""
    esc = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Similar answers: {esc(report.lesson)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>Similar answers: {esc(report.lesson)}</h1>",
        f"<p>{report.students} submission(s) compared, cell by cell, with the "
        "released cell's code and the reference answer left out: what every "
        "student was given and what is right are no evidence of copying. "
        "Similarity is the smaller of the two answers' shares of shared code "
        "(names and literals made anonymous). A high rank is a reason to read "
        "two notebooks, never a verdict.</p>",
        "<h2>The lesson</h2>",
        _table(report.overall[:top]),
    ]
    cells = sorted({p.cell for p in report.pairs})
    for cell in cells:
        pairs = [p for p in report.pairs if p.cell == cell][:top]
        parts.append(f"<h2 id='{esc(cell)}'>Answer cell <code>{esc(cell)}</code></h2>")
        parts.append(_table(pairs))
        for p in pairs:
            parts.append(
                f"<h3>{esc(p.first)} and {esc(p.second)}: "
                f"{100 * p.similarity:.0f}%, {p.tokens} shared tokens</h3>"
                f"<div class='pair'><pre aria-label='{esc(p.first)}'>{p.code[0]}</pre>"
                f"<pre aria-label='{esc(p.second)}'>{p.code[1]}</pre></div>"
            )
    if report.problems:
        items = "".join(f"<li>{esc(x)}</li>" for x in report.problems)
        parts.append(f"<h2>Not compared</h2><ul>{items}</ul>")
    parts.append("</body></html>")
    Path(path).write_text("\n".join(parts), encoding="utf-8")


def _table(pairs: list) -> str:
    if not pairs:
        return (
            "<p>No two answers share code beyond what was given and what is right.</p>"
        )
    rows = ["<tr><th>students</th><th>similarity</th><th>shared tokens</th></tr>"]
    for p in pairs:
        who = f"{html.escape(p.first)} and {html.escape(p.second)}"
        rows.append(
            f"<tr><td>{who}</td><td>{100 * p.similarity:.0f}%</td>"
            f"<td>{p.tokens}</td></tr>"
        )
    return "<table>" + "".join(rows) + "</table>"
