r"""HTML headings of a markdown sheet (or notebook cell), as the student sees them.

Course notebooks often style their headings in HTML rather than with ``#``::

    <h3><font color=blue> Answer 1a </font> </h3>

On its own lines such a heading is a raw HTML block for pandoc (CommonMark's HTML block,
kind 6), so no reader sees a heading: its tags land in a field (where the platform shows them
as text) and the words it shows ("Answer 1a", "Problem 2") cannot mark a question or a
solution. :func:`html_headings` writes each heading that stands alone on its lines as the
markdown heading it shows (``### Answer 1a``): its level from the tag, its text with the
inline tags inside (``<font>``, ``<b>``, ``<span>`` …) left off, on the heading's first line,
its other lines left blank, so every line keeps its number (flags name the sheet's lines).
No word is added or dropped: only tags go. A heading inside fenced code, one sharing its line
with other text, or one never closed is left as it is.
"""

from __future__ import annotations

import re

from tasks.convert.details import rewrite_blocks

_OPEN = re.compile(r"^ {0,3}<h(?P<level>[1-6])\b[^>]*>", re.I)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*\b[^<>]*>")


def html_headings(markdown: str) -> str:
    """``markdown`` with each margin ``<hN>…</hN>`` element alone on its lines written as a
    markdown heading of level N holding its text (inner tags left off, spaces collapsed) on
    the same number of lines (module docstring). Lines inside fenced code are left as they
    are; a text without ``<h`` is returned as it is. Never raises."""
    if "<h" not in markdown.lower():
        return markdown

    def block(lines: list[str], i: int) -> tuple[int, list[str]] | None:
        heading = _heading(lines, i)
        return None if heading is None else (heading[0], [heading[1], *[""] * (heading[0] - i)])

    return rewrite_blocks(markdown, block)


def _heading(lines: list[str], start: int) -> tuple[int, str] | None:
    """(index of the closing line, the markdown heading) for a heading element opening at
    ``start`` and closing, with nothing after it, before a blank line; else None."""
    m = _OPEN.match(lines[start])
    if not m:
        return None
    level = m.group("level")
    close = re.compile(rf"</h{level}\s*>\s*$", re.I)
    for j in range(start, min(len(lines), start + 8)):
        if j > start and not lines[j].strip():
            return None
        if close.search(lines[j]):
            inner = "\n".join(lines[start:j + 1])
            inner = inner[m.end():]
            inner = close.sub("", inner.rstrip())
            if re.search(rf"<h{level}\b", inner, re.I):
                return None
            text = " ".join(_TAG.sub(" ", inner).split())
            if not text:
                return None
            return j, f"{'#' * int(level)} {text}"
    return None
