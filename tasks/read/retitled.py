"""A solutions document whose sections are the sheet's, retitled: the questions are read at
the headings of one level, and the solutions hold as many headings of that level, in the
same order, under other words (a key kept from an earlier year of the course, which
restates one problem and names the others its own way: "Sensitivity to Planewave cutoff"
on the sheet, "Convergence of Encut" in the key). Then each solution heading opens the
solution of the question at the same place, paired by order, since the counts agree and
nothing else names them; a heading that shares no word with its question's title makes that
pairing a doubt, flagged ``structure`` on the question (a person checks the solution is
that question's)."""

from __future__ import annotations

import re

from schemas.flags import Flag
from tasks.read.discovery import ast, heading_texts

_WORD = re.compile(r"[^\W\d_]{4,}")


def _words(title: str) -> set[str]:
    """The words of four letters or more of a heading (casefolded; a plural's ``s`` cut)."""
    return {w.casefold().rstrip("s") for w in _WORD.findall(title)}


def retitled(level: int | None, questions_md: str, solutions_md: str) -> list[tuple[str, str]]:
    """The (question's, solution's) heading texts in order, when the questions' headings of
    ``level`` (two or more) and the solutions' of that level are as many and not all the
    same words; else ``[]`` (other counts, or the same headings: :func:`tasks.read.layout.mirrored`)."""
    if not level:
        return []
    mine = heading_texts(ast(questions_md), level)
    theirs = heading_texts(ast(solutions_md), level)
    if len(mine) < 2 or len(mine) != len(theirs) or mine == theirs:
        return []
    return list(zip(mine, theirs))


def retitled_flags(pairs: list[tuple[str, str]]) -> list[Flag]:
    """A ``structure`` flag on each question whose solution heading shares no word with the
    question's own (``pairs`` from :func:`retitled`): the pairing by order is all that puts
    that solution there."""
    return [Flag(field=f"q{i}", kind="structure", reason=(
        f"the solutions' section \u201c{theirs}\u201d is paired with question {i} (\u201c{mine}\u201d) only by its "
        "place: the solutions title their sections otherwise; check that this solution answers this question"))
        for i, (mine, theirs) in enumerate(pairs, start=1) if not _words(mine) & _words(theirs)]
