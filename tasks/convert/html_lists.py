r"""HTML lists of a markdown sheet (``.md``, ``.Rmd``, ``.qmd``, a notebook's markdown cell), as the
student sees them: numbered or bulleted items.

Sheets knitted to HTML often number their questions with HTML tags rather than markdown::

    <ol>
    <li>
    Download the data and import it.
    </li>
    <li>Pick the three variables.</li>
    </ol>

Pandoc reads such a list as one raw HTML block, so no reader sees an item: every question
of the sheet landed in one field. :func:`html_lists` writes each list that opens at the margin
as the markdown list it shows (``1. Download the data …``, ``- …`` for ``<ul>``), nested lists
indented under their item; a line holding only tags becomes blank, so every line keeps its
number (flags name the sheet's lines). No word is added or dropped: only the list tags go
(other inline tags stay as they were). A list inside fenced code, or one never closed, is
left as it is; an ``<ol start="4">`` numbers on from 4.
"""

from __future__ import annotations

import re

from tasks.convert.details import rewrite_blocks

_START = re.compile(r"^ {0,3}<(ol|ul)\b[^>]*>", re.I)
_TAG = re.compile(r"<(/?)(ol|ul|li)\b([^>]*)>", re.I)


def html_lists(markdown: str) -> str:
    """``markdown`` with each margin ``<ol>``/``<ul>`` list written as a markdown list on the
    same lines (module docstring). A text without ``<ol``/``<ul`` is returned as it is; a list
    never closed (or closed more than opened) is left as it is. Never raises."""
    low = markdown.lower()
    if "<ol" not in low and "<ul" not in low:
        return markdown
    return rewrite_blocks(markdown, lambda lines, i: _list_lines(lines, i) if _START.match(lines[i]) else None)


def _list_lines(lines: list[str], start: int) -> tuple[int, list[str]] | None:
    """(index of the line closing the list opened at ``start``, its lines as markdown), or None
    when it does not close before the text ends or holds a fence."""
    stack: list[list] = []          # per open list: [kind, next number, indent of its items]
    marker: str | None = None        # an item opened whose text has not begun
    content = ""                     # indent of the open item's text
    written: list[str] = []
    for j in range(start, len(lines)):
        if lines[j].lstrip().startswith(("```", "~~~")):
            return None
        text, pos = "", 0
        for m in _TAG.finditer(lines[j]):
            text += lines[j][pos:m.start()]
            pos = m.end()
            closing, name = m.group(1), m.group(2).lower()
            if name in ("ol", "ul") and not closing:
                indent = content if stack else ""
                first = re.search(r"start\s*=\s*[\"']?(\d+)", m.group(3) or "", re.I)
                stack.append([name, int(first.group(1)) if first else 1, indent])
            elif name in ("ol", "ul"):
                if not stack:
                    return None
                stack.pop()
                if not stack:
                    tail = lines[j][pos:].strip()
                    written.append(_line(text, marker, content) if not tail else lines[j])
                    return (j, written) if not tail else None
            elif name == "li" and not closing and stack:
                kind, number, indent = stack[-1]
                marker = indent + (f"{number}. " if kind == "ol" else "- ")
                content = " " * len(marker)
                stack[-1][1] = number + 1
        text += lines[j][pos:]
        line = _line(text, marker, content)
        if marker is not None and text.strip():
            marker = None
        written.append(line)
    return None


def _line(text: str, marker: str | None, content: str) -> str:
    """One line of the list: blank when it held only tags, the item's marker before the first
    text of an item, else the text indented under its item."""
    if not text.strip():
        return ""
    if marker is not None:
        return marker + text.strip()
    return content + text.strip() if content else text
