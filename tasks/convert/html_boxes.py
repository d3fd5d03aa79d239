r"""HTML boxes of a markdown sheet (or notebook cell) that open with a bold title, as the
student sees them: the title in bold and the text of the box after it.

Lecture and workshop notebooks (Jupyter's ``alert`` classes, a site's ``callout`` or ``box``
classes) put each task in a coloured box whose first line is a bold title::

    <div class="alert alert-success">
    <b>Exercise 2.1: Sum the column</b>
    Add the numbers of the second column.
    </div>

Written at the margin with no blank line after the opening tag, the whole box is one raw HTML
block for pandoc (CommonMark's HTML block, kind 6): the bold title and the text are markup no
reader can see as a paragraph, so the repeated titles that mark the questions are invisible.
:func:`titled_boxes` writes such a box as what it shows — its bold title as a bold markdown
paragraph (``**Exercise 2.1: Sum the column**``), or as the bold opening of the text that
follows it on its line (``**Task 3** : Find …``), and the lines of the box after it as markdown —
so the reader discovers the titles as it discovers any repeated bold opening. Only the box's
tags go: no word is added or dropped. A box that is an answer (``class="answer"`` or
``solution``, read by the general filter as a solution), a hidden box (``hidden``,
``display:none``) and a box whose first line is no bold title are left as they are.
"""

from __future__ import annotations

import re

from tasks.convert.details import rewrite_blocks

_OPEN = re.compile(r"^ {0,3}<div\b(?P<attrs>[^>]*)>\s*$", re.I)
_BOLD = re.compile(r"<(b|strong)\b[^>]*>(?P<title>.*?)</\1\s*>", re.I | re.S)
_TITLE = re.compile(r"^\s*(?:<(b|strong)\b[^>]*>.*?</\1\s*>|\*\*[^*].*?\*\*)", re.I)
ANSWER_CLASSES = ("answer", "solution")
"""Classes of a box the general filter reads as a worked solution (its ``html_div_open``)."""


def titled_boxes(markdown: str) -> str:
    """``markdown`` with each margin ``<div …>`` box whose first line is a bold title written
    as its content: the title a bold paragraph, the rest of the box's lines after it, blank
    lines around (module docstring). Boxes nested in the box keep their tags. A text without
    ``<div`` is returned as it is; an unclosed box is left as it is. Never raises."""
    if "<div" not in markdown.lower():
        return markdown

    def block(lines: list[str], i: int) -> tuple[int, list[str]] | None:
        m = _OPEN.match(lines[i])
        end = _closing(lines, i) if m and _shown(m.group("attrs")) else None
        body = lines[i + 1:end] if end is not None else []
        first = next((ln for ln in body if ln.strip()), "")
        if end is not None and _TITLE.match(first) and lines[end].strip().lower() == "</div>":
            return end, ["", *_markdown_lines(body), ""]
        return None

    return rewrite_blocks(markdown, block)


def _shown(attrs: str) -> bool:
    """Whether a box with these attributes is shown and is not an answer box."""
    low = attrs.lower()
    cls = re.search(r"class\s*=\s*[\"']([^\"']*)[\"']", low)
    classes = cls.group(1).split() if cls else []
    if any(c in ANSWER_CLASSES for c in classes):
        return False
    return not (re.search(r"\bhidden\b", low) or re.search(r"display\s*:\s*none", low))


def _closing(lines: list[str], start: int) -> int | None:
    """Index of the line closing the box opened at ``start`` (nested boxes counted), or None."""
    depth = 0
    for j in range(start, len(lines)):
        low = lines[j].lower()
        depth += len(re.findall(r"<div\b", low)) - low.count("</div>")
        if depth <= 0:
            return j
    return None


def _markdown_lines(body: list[str]) -> list[str]:
    """The box's lines as markdown: the bold title alone in its paragraph (or opening the
    text that follows it on its line), whitespace-only
    lines blank, each line's indent of at most four spaces left off (inside an HTML block it
    is not code)."""
    out: list[str] = []
    titled = False
    for ln in body:
        if not ln.strip():
            out.append("")
            continue
        ln = re.sub(r"^ {1,4}", "", ln)
        if not titled:
            titled = True
            m = _BOLD.match(ln.strip())
            if m:
                rest = ln.strip()[m.end():].strip()
                # text after the title on its line runs on from it (``<b>Task 3</b> : Find …``);
                # a title alone is a paragraph of its own
                out += [f"**{m.group('title').strip()}** {rest}"] if rest else [f"**{m.group('title').strip()}**", ""]
                continue
        out.append(ln)
    return out
