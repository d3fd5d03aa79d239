"""Doubts on a question bank read item by item at the paragraph the sheet closes each item with
(a quiz bank's ``Feedback``: :func:`tasks.read.discovery.closing_paragraphs`): an item whose
feedback answers nothing, with no options, whose text runs on past its stem, may hold its
answer in that text (a fill-in's accepted answers typed under the question)."""

from __future__ import annotations

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.read.discovery import ast, closing_paragraphs

KIND = "structure"


def unanswered_item_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """A ``structure`` flag (field ``q<n>``) on each question of a sheet that closes its items
    with a repeated paragraph, when the question has no options, no answer nor worked solution,
    and two or more paragraphs of text: the paragraph after its stem may be its answer (nothing
    tells a stem's second paragraph from accepted answers). ``[]`` when the sheet has no closing
    paragraph; raises nothing."""
    candidates = [qi for qi, q in enumerate(questions.root)
                  if not any(p.options or p.answer.strip() or p.worked_solution.strip() for p in q.parts)
                  and len([t for t in q.main_text.split("\n\n") if t.strip()]) >= 2]
    if not candidates:
        return []
    closers = closing_paragraphs(ast(questions_md))
    if not closers:
        return []
    return [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
        f"question {qi + 1} has no options and the sheet answers nothing after its {closers[0]!r} paragraph, "
        "yet its text runs on past its first paragraph: is the answer (accepted answers of a fill-in) "
        "written in its text?")) for qi in candidates]
