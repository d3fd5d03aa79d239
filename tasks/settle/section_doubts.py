"""A section of a sheet read as a question: a doubt of the audit (:mod:`tasks.settle.audit`)
that needs only the set. A question that asks nothing and is answered nowhere, among questions
that are answered, is most likely the sheet's introduction, lecture text or closing review; and
the sheet's section named for its tasks (``## Questions``) left in no field while questions were
read from text outside it (:func:`unread_section_flags`): steps or a tutorial read as questions."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import Question, SheetSet

KIND = "structure"


def solved(q: Question) -> bool:
    """Does any part of ``q`` hold an answer or a worked solution?"""
    return any(p.answer.strip() or p.worked_solution.strip() for p in q.parts)


_CODE_OR_SPAN = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`", re.S)


def section_flags(questions: SheetSet) -> list[Flag]:
    """A titled section read as a question that asks nothing and is answered nowhere, in a set
    where two or more other questions are answered: its title carries no number, it has no
    part, no solution and no question mark outside code. A sheet's introduction, lecture or
    closing review read as a question? (one flag on it)."""
    qs = questions.root
    answered = [solved(q) for q in qs]
    if sum(answered) < 2:
        return []
    flags = []
    for qi, q in enumerate(qs):
        title = q.title.strip()
        if answered[qi] or q.parts or not title or re.search(r"\d", title):
            continue
        if "?" in _CODE_OR_SPAN.sub(" ", q.main_text):
            continue
        flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"question {qi + 1} ({title[:40]!r}) asks nothing and is answered nowhere, while {sum(answered)} other "
            "questions are answered: a section of the sheet (an introduction, lecture text, a review) read as a "
            "question?")))
    return flags


_NAMED = re.compile(r"^ {0,3}(#{1,6})\s+(?:\*\*|__)?\s*(?:questions?|problems?|exercises?|tasks?|homework|assignment|"
                    r"aufgaben|übungsaufgaben|exercices|ejercicios|preguntas)\s*:?\s*(?:\*\*|__)?\s*#*\s*$", re.I)
_ANY_HEADING = re.compile(r"^ {0,3}(#{1,6})\s")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _named_sections(markdown: str) -> list[tuple[int, int, str]]:
    """The sections under a heading that is only a name for the tasks (``## Questions``,
    ``## Exercises``, ``# Aufgaben``), outside code: ``(first line, last line, heading)``,
    1-based, the section ending before the next heading of its level or higher."""
    lines = markdown.splitlines()
    out, fenced = [], False
    heads: list[tuple[int, int]] = []  # (line, level) of every heading outside code
    for n, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := _ANY_HEADING.match(line)):
            heads.append((n, len(m.group(1))))
    for i, (n, level) in enumerate(heads):
        if _NAMED.match(lines[n - 1]):
            end = next((m - 1 for m, lv in heads[i + 1:] if lv <= level), len(lines))
            out.append((n, end, lines[n - 1].strip()))
    return out


def unread_section_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """The sheet's section named for its tasks (``## Questions``) left mostly in no field (two
    lines or more, at least half its lines of text), while questions were read from text outside
    it: one flag on each such question (steps of instructions, notes or a tutorial after the
    tasks read as questions, the sheet's own questions left out?)."""
    from tasks.settle.coverage import field_texts, uncovered
    from tasks.settle.source_lines import SourceLines, question_starts

    sections = _named_sections(questions_md)
    if not sections or not len(questions):
        return []
    lines = questions_md.splitlines()
    missed = {n for n, _ in uncovered(questions_md, field_texts(questions))}
    starts = question_starts(questions, SourceLines(questions_md))
    flags: list[Flag] = []
    for first, last, heading in sections:
        text = [n for n in range(first + 1, last + 1) if lines[n - 1].strip() and not _ANY_HEADING.match(lines[n - 1])]
        left = [n for n in text if n in missed]
        if len(left) < 2 or 2 * len(left) < len(text):
            continue
        for qi, st in enumerate(starts):
            said = {f.field for f in flags}
            if st is not None and not first <= st + 1 <= last and f"q{qi + 1}" not in said:
                flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                    f"the sheet's section {heading!r} (lines {first}-{last}) is in no field, and question {qi + 1} "
                    f"is read from line {st + 1}, outside it: steps, notes or a tutorial read as a question, "
                    "the sheet's own questions left out?")))
    return flags
