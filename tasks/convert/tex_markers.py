r"""Question markers of a class we do not have, for the TeX pre-pass (what the pre-pass does:
:mod:`tasks.convert.latex`).

A sheet whose class is not at hand (``\documentclass{coursepset}``) often marks its
questions and parts with the class's commands alone: ``\problem{1} …``, ``\problempart …``.
pandoc skips each one (with its argument), and the sheet converts to bare paragraphs: no
question at all. When the body has no other structure (no sectioning command, no
question environment at its top level), an undefined command that opens lines
(paragraphs, or lines under a lead-in) again and again is read as a marker, by what
repeats, never by its name: the first such command in the body opens questions, a second one first met after it opens parts inside
them. Each call becomes a list item (questions ``1.``, numbered from a number argument;
parts ``(a)``); a short argument that is not a number is kept as the item's bold title.
Each is said in an ``UnknownMacro`` conversion note.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode

from tasks.convert.latex import QUESTION_WORDS, START_LABEL
from tasks.convert.tex_unknown import gather, is_unknown_macro

HEADINGS = {"chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph"}
_DIMEN = re.compile(r"\s*[-+]?[\d.]+\s*(?:pt|cm|mm|in|em|ex|bp|pc|sp|dd|cc|mu|\\[A-Za-z]+)")
MAX_TITLE = 60
"""Longest argument kept as an item's title (longer ones hold text: not a marker's)."""


def _opens_line(src: str, pos: int) -> bool:
    """Is the command at ``pos`` the first thing on its source line? (A marker of a class
    opens a line: after a blank line, after a display or an environment's end, or line
    after line: ``\\problempart`` under a question's lead-in.)"""
    return not src[src.rfind("\n", 0, pos) + 1:pos].strip()


def plan(ed, parsed) -> dict[int, tuple[int, str]]:
    """Marker calls of the document's body: offset → (level 1 or 2, argument text)."""
    doc = next((n for n in parsed if isinstance(n, LatexEnvironmentNode) and n.environmentname == "document"), None)
    if doc is None:
        return {}
    nodes = [n for n in doc.nodelist if n is not None]
    if any(isinstance(n, LatexMacroNode) and n.macroname in HEADINGS for n in nodes) or any(
            isinstance(n, LatexEnvironmentNode) and (n.environmentname.lower().rstrip("*") in QUESTION_WORDS
                                                     or n.environmentname in ed.ctx.theorems) for n in nodes):
        return {}
    calls: dict[str, list[tuple[int, str]]] = {}
    for i, n in enumerate(nodes):
        if not is_unknown_macro(ed, n) or not _opens_line(ed.src, n.pos):
            continue
        groups, _, opt = gather(nodes, i)
        if len(groups) > 1 or opt is not None or _DIMEN.match(ed.src, n.pos + n.len):
            continue  # a length after it (\vskip 1cm): spacing, never a marker
        text = "".join(x.latex_verbatim() for x in groups[0].nodelist).strip() if groups else ""
        if len(text) > MAX_TITLE or "\n\n" in text:
            continue
        calls.setdefault(n.macroname, []).append((n.pos, text))
    markers = [m for m, c in calls.items() if len(c) >= 2 or (c and c[0][1].isdigit())]
    markers.sort(key=lambda m: calls[m][0][0])
    if not markers:
        return {}
    out = {pos: (1, text) for pos, text in calls[markers[0]]}
    first = calls[markers[0]][0][0]
    if len(markers) > 1 and calls[markers[1]][0][0] > first:
        out.update({pos: (2, text) for pos, text in calls[markers[1]] if pos > first})
    ed.unknown.marker_names = {markers[0]: 1, **({markers[1]: 2} if len(markers) > 1 else {})}
    ed.unknown.marker_end = doc.pos + doc.len - len("\\end{document}")
    return out


def apply(ed, nodes: list, i: int) -> int:
    """Rewrite the marker call ``nodes[i]`` as a list item; the index past its argument."""
    st, n = ed.unknown, nodes[i]
    level, text = st.markers[n.pos]
    groups, j, _ = gather(nodes, i)
    ed.converted.add(n.macroname)
    end = groups[0].pos + groups[0].len if groups else n.pos + len(n.macroname) + 1
    title = f"\\textbf{{{text}}} " if text and not text.isdigit() else ""
    if level == 1:
        first = not st.open_levels
        lead = "\\begin{enumerate}\n" if first else "\\end{enumerate}\n" if st.open_levels == 2 else ""
        st.open_levels = 1
        label = f" \\label{{{START_LABEL}{text}}}" if first and text.isdigit() and text != "1" else ""
        ed.edit(n.pos, end, f"{lead}\\item{label} {title}")
        st.once(ed, "marker:" + n.macroname, f"\\{n.macroname} is defined in no file here and opens lines "
                "again and again: each call was read as the start of a question", n.macroname)
    else:
        lead = "\\begin{enumerate}[(a)]\n" if st.open_levels == 1 else ""
        st.open_levels = 2
        ed.edit(n.pos, end, f"{lead}\\item {title}")
        st.once(ed, "marker:" + n.macroname, f"\\{n.macroname} is defined in no file here and opens lines "
                "inside each question: each call was read as the start of a part", n.macroname)
    return j


def close(ed) -> None:
    """Close the lists the markers opened, at ``\\end{document}``."""
    st = ed.unknown
    if st.open_levels:
        ed.edit(st.marker_end, st.marker_end, "\n\\end{enumerate}" * st.open_levels + "\n")
        st.open_levels = 0
