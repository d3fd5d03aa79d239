"""Solutions that head each answer with the sheet's own part heading.

A worked notebook or key that names no question (no ``Solution 1``, no ``Problem 1``) often
heads each answer with the heading the sheet gave that part (``### Task a`` under the sheet's
``## Task a``, ``#### (b)`` under ``### (b)``), at whatever level its own outline puts it.
Read by the general reader such a document has no numbering to pair by, and paired by
position its answers land whole on one part. :func:`part_sections` finds those headings
instead: each heading of the solutions whose text is, word for word, that of a heading of the
sheet opening a part (its last word the part's label) opens that part's solution, which runs
to the next such heading or the next heading of its level or above. The headings are matched
in order, so a label the sheet repeats under several questions (``(a)`` in each) goes to the
next question's part each time.
"""

from __future__ import annotations

import re

from schemas.sheet import Part, Question, SheetSet
from tasks.read.route_b import Numbers, pairs_by_number

_FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(?:\{[^}]*\})?[ \t]*#*[ \t]*$")
_MARKER = re.compile(r"^(?:[^\W\d_]+\s+)?\(?([a-z]|[ivx]{1,4}|\d{1,2}(?:\.\d{1,2})?)\)?[.:)]?(?:\s*[:.\u2013-]\s+\S.*)?$")
"""A part heading: an optional word, then the label (``Task a``, ``(b)``, ``Part 2.1: Title``)."""


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[*_`]", "", text).casefold().split()).rstrip(":.")


def headings(md: str) -> list[tuple[int, int, str]]:
    """The ATX headings of a markdown document outside fenced code: ``(line index, level,
    folded text)`` in order (a ``# comment`` in a code cell is no heading)."""
    out, fence = [], ""
    for i, line in enumerate(md.split("\n")):
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            continue
        h = _HEADING.match(line)
        if h and h.group(2).strip():
            out.append((i, len(h.group(1)), _norm(h.group(2))))
    return out


def _part_headings(questions_md: str, q_numbers: Numbers) -> list[tuple[str, int, str]]:
    """The sheet's headings that open its parts, in order: ``(folded text, question index, label)``.
    A heading opens the next part (in reading order) whose label its last word is."""
    order = [(qi, lab) for qi, (_, labs) in enumerate(q_numbers) for lab in labs if lab]
    out, at = [], 0
    for _, _, text in headings(questions_md):
        m = _MARKER.match(text)
        if not m:
            continue
        label = m.group(1)
        for k in range(at, len(order)):
            if order[k][1].casefold().strip("().") == label:
                out.append((text, order[k][0], order[k][1]))
                at = k + 1
                break
    return out


def part_sections(questions_md: str, q_numbers: Numbers, solutions_md: str) -> tuple[SheetSet, Numbers] | None:
    """The solutions read at the sheet's part headings (see the module): a reading with one
    question per question answered (numbered as the sheet numbers it), each holding the
    sections of its parts as worked solutions (the lines under the heading, verbatim), and its
    numbering; ``None`` when fewer than two of the sheet's part headings open a section of the
    solutions."""
    wanted = _part_headings(questions_md, q_numbers)
    if len(wanted) < 2:
        return None
    lines = solutions_md.split("\n")
    found = headings(solutions_md)
    opened: list[tuple[int, int, int, str]] = []  # (position in found, level, question, label)
    at = 0
    for f, (_, level, text) in enumerate(found):
        for k in range(at, len(wanted)):
            if wanted[k][0] == text:
                opened.append((f, level, wanted[k][1], wanted[k][2]))
                at = k + 1
                break
    if len(opened) < 2:
        return None
    starts = {f for f, *_ in opened}
    pieces: dict[int, list[tuple[str, str]]] = {}
    for f, level, qi, label in opened:
        end = len(lines)
        for g in range(f + 1, len(found)):
            if g in starts or found[g][1] <= level:
                end = found[g][0]
                break
        text = "\n".join(lines[found[f][0] + 1:end]).strip()
        if text:
            pieces.setdefault(qi, []).append((label, text))
    if sum(len(v) for v in pieces.values()) < 2:
        return None
    reading = SheetSet([Question(parts=[Part(worked_solution=t) for _, t in v]) for _, v in sorted(pieces.items())])
    numbers = [(q_numbers[qi][0], [lab for lab, _ in v]) for qi, v in sorted(pieces.items())]
    return reading, numbers


def at_part_headings(questions_md: str, q_numbers: Numbers, solutions_md: str,
                     s_numbers: Numbers | None) -> tuple[SheetSet, Numbers] | None:
    """:func:`part_sections` when the solutions reading has nothing better to pair by: the
    sheet numbers every question (so the sections pair by number), and the solutions' own
    numbering neither pairs by number nor labels a part; else ``None``."""
    if not pairs_by_number(q_numbers, q_numbers):  # the sheet does not number each question once
        return None
    if pairs_by_number(q_numbers, s_numbers) or any(lab for _, labs in s_numbers or [] for lab in labs):
        return None
    return part_sections(questions_md, q_numbers, solutions_md)
