"""Solutions documents that restate each question before solving it (very common): the
restated text is no part of the worked solution.

A paragraph of a solution part is *restated* when its text, folded (lower case, letters and
digits only), is at least :data:`MIN_FOLDED` characters long and is found inside the folded
text of the question it answers (main text and parts). Such paragraphs are cut from the
part's worked solution and final answer; a solution part left with nothing (the prompt of a
part the solutions do not answer) is no solution. Which question a solution answers is found
by number when both documents number their questions, else by position, as route B pairs
them (:func:`tasks.read.route_b.merge_solutions`).
"""

from __future__ import annotations

import re

from schemas.sheet import Question, SheetSet

MIN_FOLDED = 20
"""Folded characters a paragraph needs before it can count as restated (shorter ones, such as
``x = 2``, may be in a question by chance)."""


def fold(text: str) -> str:
    """``text`` lower-cased with only letters and digits kept."""
    return re.sub(r"[\W_]+", "", text.lower())


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def cut_restated(text: str, question_text: str) -> str:
    """``text`` without its paragraphs that restate ``question_text`` (folded, see the module),
    the rest joined by blank lines as they were."""
    if not text.strip():
        return text
    kept = [p for p in _paragraphs(text) if not (len(fold(p)) >= MIN_FOLDED and fold(p) in question_text)]
    return "\n\n".join(kept)


def _question_text(q: Question) -> str:
    return fold(q.main_text + "\n" + "\n".join(p.content for p in q.parts))


def without_restatements(solutions: SheetSet, questions: SheetSet,
                         s_numbers: list | None = None, q_numbers: list | None = None) -> SheetSet:
    """A copy of ``solutions`` with every paragraph that restates its question cut from worked
    solutions and final answers (see the module). ``s_numbers`` / ``q_numbers``: the two
    readings' numberings (:data:`tasks.read.route_b.Numbers`); by number when both give every
    question a distinct number, else by position."""
    out = solutions.model_copy(deep=True)
    by_number: dict[str, int] = {}
    if q_numbers and s_numbers:
        nums = [n for n, _ in q_numbers]
        if all(nums) and len(set(nums)) == len(nums):
            by_number = {n: i for i, n in enumerate(nums)}
    for si, sq in enumerate(out.root):
        if by_number:
            qi = by_number.get(s_numbers[si][0] if si < len(s_numbers) else "")
        else:
            qi = si if si < len(questions.root) else None
        if qi is None or qi >= len(questions.root):
            continue
        text = _question_text(questions.root[qi])
        if not text:
            continue
        for p in sq.parts:
            p.worked_solution = cut_restated(p.worked_solution, text)
            p.answer = cut_restated(p.answer, text)
    return out
