"""A Quarto callout titled as a solution is the worked solution of what it follows.

Quarto sheets hide each answer in a collapsed callout after its question: ``::: {.callout-note
collapse="true"}`` whose title (its ``title`` attribute, or the heading it opens with, as Quarto
takes it) is ``Solution`` or ``Answer``. The reader knows a ``solution`` div, not a callout, and
takes the title heading for a heading of the sheet (a ``## Solution`` section over the rest of
the sheet). :func:`solution_callouts` reads such a callout as the ``solution`` div it is: its
fence names the class ``solution`` and its title heading line is left blank (the line count
kept, so every line of the sheet stays where it was). A callout titled otherwise (``Hint``,
``Note``) is left as it is.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<colons>:{3,})\s*\{?(?P<attrs>[^}\n]*)\}?\s*$")
_TITLE_ATTR = re.compile(r"""\btitle\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
SOLUTION_TITLE = re.compile(
    r"^\W*(?:worked\s+)?(?:solutions?|answers?|model\s+answers?|l[öo]sung(?:en)?|soluci[oó]n|corrig[ée])\b", re.I)
"""A callout title naming a solution (``Solution``, ``Answer``, ``Solution to 2``)."""


def solution_callouts(markdown: str) -> str:
    """``markdown`` with every callout (a fenced div of a ``callout-…`` class) whose title names
    a solution (:data:`SOLUTION_TITLE`) rewritten as a ``solution`` div (module docstring); the
    text unchanged when it has none."""
    lines = markdown.split("\n")
    changed = False
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if not m or not re.search(r"(?:^|[\s.])callout(?:-\w+)?\b", m.group("attrs")):
            continue
        attr = _TITLE_ATTR.search(m.group("attrs"))
        title = next((g for g in attr.groups() if g), "") if attr else ""
        heading_at = None
        if not title:
            j = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
            h = _HEADING.match(lines[j]) if j is not None else None
            if h:
                title, heading_at = h.group("title"), j
        if not SOLUTION_TITLE.match(title):
            continue
        lines[i] = f"{m.group('indent')}{m.group('colons')} {{.solution}}"
        if heading_at is not None:
            lines[heading_at] = ""
        changed = True
    return "\n".join(lines) if changed else markdown
