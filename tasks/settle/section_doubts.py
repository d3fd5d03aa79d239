"""A section of a sheet read as a question: a doubt of the audit (:mod:`tasks.settle.audit`)
that needs only the set. A question that asks nothing and is answered nowhere, among questions
that are answered, is most likely the sheet's introduction, lecture text or closing review."""

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
