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


SOLUTION_WORDS = ("solution", "solutions", "answer", "answers")
"""First words of a heading over a section's own answer (``## Solution``), which closes nothing."""


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


def _first_line(text: str) -> str:
    return _norm(text.strip().split("\n", 1)[0]) if text.strip() else ""


def _part_headings(questions_md: str, questions: SheetSet, q_numbers: Numbers | None) -> list[tuple[str, int, int]]:
    """The sheet's headings that open its parts, in order: ``(folded text, question index, part
    index)``. A heading opens the next part (in reading order) whose label is its last word
    (``Task a``), or whose content opens with the heading's words (a titled sub-section the
    reader kept in the part); a heading that is the title of a question of one part or none
    opens that part."""
    labels = [labs for _, labs in q_numbers] if q_numbers and len(q_numbers) == len(questions.root) else []
    order = []
    for qi, q in enumerate(questions.root):
        if len(q.parts) <= 1:
            order.append((qi, 0, "", _norm(q.title)))
        for pi, p in enumerate(q.parts):
            lab = labels[qi][pi] if qi < len(labels) and pi < len(labels[qi]) else ""
            order.append((qi, pi, lab.casefold().strip("()."), _first_line(p.content)))
    out, at = [], 0
    for _, _, text in headings(questions_md):
        m = _MARKER.match(text)
        for k in range(at, len(order)):
            qi, pi, lab, first = order[k]
            if (m and lab and lab == m.group(1)) or (first and first == text):
                out.append((text, qi, pi))
                at = k + 1
                break
    return out


def _closes(text: str) -> bool:
    """Does a heading close the section before it? A ``Solution`` or ``Answer`` heading is the
    section's own answer, not the next section."""
    return text.split(" ", 1)[0].rstrip(":.") not in SOLUTION_WORDS


def part_sections(questions_md: str, questions: SheetSet, q_numbers: Numbers | None,
                  solutions_md: str) -> SheetSet | None:
    """The solutions read at the sheet's part headings (see the module): a reading laid out as
    ``questions`` (one question per question, as many parts), each part found holding its
    section as worked solution (the lines under the heading, verbatim), the others empty; so it
    pairs by position. ``None`` when fewer than two of the sheet's part headings open a section."""
    wanted = _part_headings(questions_md, questions, q_numbers)
    if len(wanted) < 2:
        return None
    lines = solutions_md.split("\n")
    found = headings(solutions_md)
    opened: list[tuple[int, int, int, int]] = []  # (position in found, level, question, part)
    at = 0
    for f, (_, level, text) in enumerate(found):
        for k in range(at, len(wanted)):
            if wanted[k][0] == text:
                opened.append((f, level, wanted[k][1], wanted[k][2]))
                at = k + 1
                break
    starts = {f for f, *_ in opened}
    out = SheetSet([Question(parts=[Part() for _ in q.parts] or [Part()]) for q in questions.root])
    put = 0
    for f, level, qi, pi in opened:
        end = len(lines)
        for g in range(f + 1, len(found)):
            if g in starts or (found[g][1] <= level and _closes(found[g][2])):
                end = found[g][0]
                break
        text = "\n".join(lines[found[f][0] + 1:end]).strip()
        if text:
            out.root[qi].parts[pi].worked_solution = text
            put += 1
    return out if put >= 2 else None


def at_part_headings(questions_md: str, questions: SheetSet, q_numbers: Numbers | None, solutions_md: str,
                     s_numbers: Numbers | None) -> SheetSet | None:
    """:func:`part_sections` when the solutions reading has nothing better to pair by: its own
    numbering neither pairs by number (:func:`tasks.read.route_b.pairs_by_number`) nor labels a
    part; else ``None``."""
    if pairs_by_number(q_numbers, s_numbers) or any(lab for _, labs in s_numbers or [] for lab in labs):
        return None
    return part_sections(questions_md, questions, q_numbers, solutions_md)
