"""A bold question marker after a hard line break, in the middle of a paragraph.

Markdown sheets often set each question as a line of one paragraph, ending the line before
with a hard break (``\\`` or two spaces) rather than a blank line: ``**\\#2** Sketch the graph.\\``
then ``**\\#3** Differentiate.`` on the next line. pandoc reads one paragraph, so a reader that
opens questions at a paragraph's bold marker sees only the first. The sheet shows its marker by
repeating it: when a bold opening of one form (:data:`MARKER`: a number, a number sign and a
number, or a word and a number, bold) opens two lines or more of the sheet, each line it opens
after a hard break is made to open a paragraph of its own (:func:`split_at_run_in_markers`),
as it would after a blank line. The break's mark is dropped; no word changes. (A LaTeX sheet's
bold run-in markers after ``\\\\`` are split so in conversion: ``filters/convert/structure.lua``.)
"""

from __future__ import annotations

import re

MARKER = re.compile(r"^(?P<indent>\s*)(?:\*\*|__)(?P<form>\\?#\s*|[A-Z][a-z]+\s+|)\d+[.:)]?(?:\*\*|__)")
"""A line opening with a bold marker: ``**\\#4**``, ``**#4**``, ``**3.**``, ``**Problem 2:**``;
``form`` is what comes before the number (the number sign, or the word)."""

_HARD_BREAK = re.compile(r"(?:\\|  +)$")


def _form(m: re.Match) -> str:
    return re.sub(r"\s+", " ", m.group("form").replace("\\", "")).strip().lower()


def split_at_run_in_markers(markdown: str) -> str:
    """``markdown`` with a blank line put before each line that opens with a repeated bold
    marker (module docstring) and follows a line ending in a hard break (the break's mark cut
    from that line); outside code blocks. Unchanged when no marker form repeats."""
    lines = markdown.split("\n")
    fence = None
    counts: dict[str, int] = {}
    found: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = None if fence and stripped.startswith(fence) else (fence or stripped[:3])
            continue
        if fence:
            continue
        m = MARKER.match(line)
        if m:
            counts[_form(m)] = counts.get(_form(m), 0) + 1
            found.append((i, _form(m)))
    cut = [i for i, form in found if counts[form] >= 2 and i > 0 and _HARD_BREAK.search(lines[i - 1])
           and lines[i - 1].strip() and MARKER.match(lines[i]).group("indent") == re.match(r"\s*", lines[i - 1]).group()]
    if not cut:
        return markdown
    out = []
    for i, line in enumerate(lines):
        if i + 1 in cut:
            line = _HARD_BREAK.sub("", line).rstrip()
        if i in cut:
            out.append("")
        out.append(line)
    return "\n".join(out)
