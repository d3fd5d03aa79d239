"""Lecture sections between exercises: a section of a sheet read at its headings that asks
nothing the others ask in their way, and is answered nowhere, is text the next exercise builds on.

A course notebook often interleaves its exercises with lecture text under headings of the same
level (``## The Runge-Kutta methods``: the method set out, no task) between sections that each
number their tasks and answer each. Read at the headings, that section is a question of its own
with no part and no solution: a question the sheet never asks. It leads into the next question
instead (its main text, before that question's own), as a group heading's stem leads into its
first question.
"""

from __future__ import annotations

from schemas.sheet import Question, SheetSet
from tasks.read.route_b import Numbers


def _answered(q: Question) -> bool:
    return any(p.answer.strip() or p.worked_solution.strip() for p in q.parts)


def _asks(q: Question) -> bool:
    return any(p.content.strip() or p.options for p in q.parts)


def lecture_sections(questions: SheetSet, numbers: Numbers) -> list[int]:
    """The 0-based questions of a reading that are lecture sections (module docstring): a
    question with no part that asks, no solution and no number of its own, followed by another
    question, in a reading whose questions are unnumbered and where every other question
    numbers two or more parts and is answered in the sheet. ``numbers``: the reading's numbering
    (:data:`tasks.read.route_b.Numbers`), one entry per question; [] when it does not match."""
    qs = questions.root
    if len(qs) < 3 or len(numbers) != len(qs) or any(n for n, _ in numbers):
        return []
    quiet = [i for i, q in enumerate(qs) if not _asks(q) and not _answered(q) and q.main_text.strip()]
    others = [i for i in range(len(qs)) if i not in quiet]
    if not quiet or len(others) < 2 or quiet[-1] == len(qs) - 1:
        return []
    for i in others:
        labels = [lab for lab in numbers[i][1] if lab]
        if len(labels) < 2 or not _answered(qs[i]):
            return []
    return quiet


def lead_into_next(questions: SheetSet, numbers: Numbers, which: list[int]) -> tuple[SheetSet, Numbers]:
    """``questions`` and ``numbers`` with each question of ``which`` (0-based, none the last)
    folded into the question after it: its main text before that question's own."""
    qs = [q.model_copy(deep=True) for q in questions.root]
    carry = ""
    out_q, out_n = [], []
    for i, (q, n) in enumerate(zip(qs, numbers)):
        if i in which:
            carry = f"{carry}\n\n{q.main_text.strip()}".strip()
            continue
        if carry:
            q.main_text = f"{carry}\n\n{q.main_text.strip()}".strip()
            carry = ""
        out_q.append(q)
        out_n.append(n)
    return SheetSet(out_q), out_n
