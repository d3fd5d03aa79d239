r"""Raw HTML ``<details>`` blocks of a markdown sheet, as the student meets them.

Sites built from R Markdown or plain markdown (Hugo, Jekyll, GitHub pages) hide each answer in
a collapsed block after its task::

    1. Compute $2 + 60 \div 5$.

    <details><summary>Solution</summary>

    ```r
    2 + 60 / 5
    ```
    </details>

    2. Compare it with $3 \cdot 4$.

The student sees the task and a closed "Solution" they may open: the block is the worked
solution of the task before it, never the task's text. :func:`solution_details` rewrites such a
block (its ``<summary>`` naming a solution — opening with, or holding with no hint word, a word of
:data:`tasks.convert.myst.SOLUTION_WORDS`, the words a MyST dropdown's title is read by) as a
``solution`` div, as a MyST ``{solution}`` is read, and indents it — with whatever stands
between the task and it, such as a display — to the content column of the list item it
follows (pandoc's manual, "Block content in list items"). Written at the margin, the block
would end the list, so that every task became its own one-item list; indented, the tasks stay
one list numbered as the student sees it. A block whose summary names no solution (a hint)
is left as it is: it is the student's text.
"""

from __future__ import annotations

import re

from tasks.convert.myst import SOLUTION_WORDS

_OPEN = re.compile(r"^[ \t]*<details\b[^>]*>\s*<summary\b[^>]*>(?P<summary>.*?)</summary>(?P<rest>.*)$", re.I)
_SPLIT_SUMMARY = re.compile(r"^([ \t]*<details\b[^>\n]*>)[ \t]*\n[ \t]*(<summary\b)", re.I | re.M)
_CLOSE = re.compile(r"^(?P<before>.*?)</details>\s*$", re.I)
_ITEM = re.compile(r"^(?P<lead> {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+)\S")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def fenced(line: str, fence: str | None) -> tuple[bool, str | None]:
    """Is ``line`` part of fenced code, given ``fence`` (the open fence's run of backticks or
    tildes, ``None`` outside code), and the fence open after it. A fence closes on a line of
    only its character, at least as long (CommonMark, "Fenced code blocks")."""
    f = _FENCE.match(line)
    if fence is None:
        return (True, f.group(1)) if f else (False, None)
    if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
        return True, None
    return True, fence


def rewrite_blocks(markdown: str, block) -> str:
    """``markdown`` with each block ``block(lines, i)`` recognises at line ``i`` (outside fenced
    code: :func:`fenced`) replaced: ``block`` returns ``(index of the block's last line, its
    new lines)`` or ``None`` (the line kept). The one scan of the HTML rewriters
    (:mod:`tasks.convert.html_headings`, :mod:`~tasks.convert.html_lists`,
    :mod:`~tasks.convert.html_boxes`). Never raises unless ``block`` does."""
    lines = markdown.split("\n")
    out: list[str] = []
    fence = None
    i = 0
    while i < len(lines):
        code, fence = fenced(lines[i], fence)
        done = None if code else block(lines, i)
        if done is None:
            out.append(lines[i])
            i += 1
            continue
        end, written = done
        out += written
        i = end + 1
    return "\n".join(out)


def solution_details(markdown: str) -> str:
    """``markdown`` with each ``<details>`` block whose summary opens with a solution word as a
    ``solution`` div under the list item before it (module docstring). A text without
    ``<details`` is returned as it is; an unclosed block is left as it is. Never raises."""
    if "<details" not in markdown.lower():
        return markdown
    # a summary on the line after its <details> tag opens the block as one on the same line
    markdown = _SPLIT_SUMMARY.sub(r"\1\2", markdown)
    lines = markdown.split("\n")
    out: list[str] = []
    item: tuple[int, int] | None = None  # (index in out of the open item's line, its content column)
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        code, fence = fenced(line, fence)
        if code:
            out.append(line)
            i += 1
            continue
        m = _OPEN.match(line)
        end = _closing(lines, i) if m else None
        if m and end is not None and _is_solution(m.group("summary")):
            body = [m.group("rest")] if m.group("rest").strip() else []
            body += lines[i + 1:end]
            last = _CLOSE.match(lines[end]).group("before") if end > i else ""
            if end > i and last.strip():
                body.append(last)
            block = ["", "::: {.solution}", *body, "", ":::", ""]
            if item is not None:
                at, column = item
                start = _left_item(out, at, column)
                out[start:] = [(" " * column + ln) if ln.strip() else ln for ln in out[start:]]
                block = [(" " * column + ln) if ln.strip() else ln for ln in block]
            out += block
            i = end + 1
            continue
        im = _ITEM.match(line)
        if im:
            item = (len(out), len(im.group("lead")))
        elif line.lstrip().startswith("#") or re.match(r"^ {0,3}([-*_])( *\1){2,} *$", line):
            item = None  # a heading or a rule ends the list
        out.append(line)
        i += 1
    return "\n".join(out)


HINT_WORDS = ("hint", "hints", "tip", "tips", "clue", "clues")
"""Words of a summary that make the block a help to the task, not its solution."""


def _is_solution(summary: str) -> bool:
    """Whether a ``<summary>`` names its block as a solution: it opens with a solution word
    (``Solution``), or names one later as a button does (``Click here to see the solution``),
    with no hint word (``Hint for the solution`` stays the student's text)."""
    words = re.findall(r"\w+", re.sub(r"<[^>]*>", " ", summary).lower())
    if not words or any(w in HINT_WORDS for w in words):
        return False
    return words[0] in SOLUTION_WORDS or any(w in SOLUTION_WORDS for w in words[1:])


def _closing(lines: list[str], start: int) -> int | None:
    """Index of the line closing the ``<details>`` opened at ``start`` (nested blocks
    counted), or ``None`` when none closes it."""
    depth = 0
    for j in range(start, len(lines)):
        low = lines[j].lower()
        depth += low.count("<details") - low.count("</details>")
        if depth <= 0:
            return j
    return None


def _left_item(out: list[str], at: int, column: int) -> int:
    """Index in ``out`` of the first line after the item opened at ``at`` that stands left of
    its content column after a blank line (where the list was broken off), or ``len(out)``."""
    blank = False
    for k in range(at + 1, len(out)):
        ln = out[k]
        if not ln.strip():
            blank = True
            continue
        if blank and len(ln) - len(ln.lstrip(" ")) < column:
            return k
        blank = False
    return len(out)


def closed_in_cell(cell_text: str) -> str:
    """A notebook markdown cell's text with each ``<details>`` block left open closed at the
    cell's end, where Jupyter closes it: each cell is rendered as HTML of its own, so a block
    never closed holds the rest of its cell and no more. Fenced code is not counted. A cell
    whose blocks all close is returned as it is; never raises."""
    low = cell_text.lower()
    if "<details" not in low:
        return cell_text
    depth, fence = 0, None
    for line in cell_text.split("\n"):
        code, fence = fenced(line, fence)
        if code:
            continue
        low = line.lower()
        depth = max(0, depth + low.count("<details") - low.count("</details>"))
    return cell_text if depth == 0 else cell_text.rstrip("\n") + "\n" + "</details>\n" * depth
