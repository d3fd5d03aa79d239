"""Doubts on a sheet that answers its lists in a key block of its own (issue 20): a list of
tasks, then a short lead-in ending in a colon with an answer word among its first two words
(``Solutions:``, ``Some answers:``, ``**Answers to the questions above:**``) over a numbered
list answering them item by item (general.lua's ``answered_lists`` reads each answer into its
item). Where the sheet keys its lists so, a question that no key answers is doubted: a worked
example's steps read as questions, a key whose count differs from its list's (left unpaired,
its items read as questions), or the answers of a block with no lead-in read as questions."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.read.discovery import ast

KIND = "structure"

ANSWER_WORDS = frozenset({"answer", "answers", "solution", "solutions", "réponse", "réponses", "lösung", "lösungen",
                          "solución", "soluciones", "risposta", "risposte", "antwort", "antworten"})
"""The words that head a key (as general.lua's ``ANSWER_WORDS``)."""

LEAD_CHARS = 80
"""A key's lead-in is at most this long (as general.lua's ``answers_lead``)."""


def _words(inlines: list) -> str:
    """The text of pandoc JSON ``inlines`` (words, spaces; emphasis and spans read through)."""
    out: list[str] = []
    for x in inlines:
        t, c = x.get("t"), x.get("c")
        if t == "Str":
            out.append(c)
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t in ("Emph", "Strong", "Underline", "SmallCaps"):
            out.append(_words(c))
        elif t == "Span":
            out.append(_words(c[1]))
    return "".join(out)


def answers_lead(block: dict) -> bool:
    """Is the pandoc JSON ``block`` a key's lead-in: a paragraph of at most :data:`LEAD_CHARS`
    characters ending in a colon, an answer word among its first two words?"""
    return block.get("t") in ("Para", "Plain") and _leads(_words(block.get("c") or []))


def _leads(text: str) -> bool:
    """The lead-in rule on a text: at most :data:`LEAD_CHARS` characters (spaces collapsed),
    ending in a colon, an answer word among its first two words."""
    text = " ".join(text.replace("\u00a0", " ").split())
    if not text or len(text) > LEAD_CHARS or not text.endswith(":"):
        return False
    return any(w in ANSWER_WORDS for w in re.findall(r"[^\W\d_]+", text.lower())[:2])


_MARKUP = re.compile(r"[*_`\\]+")
_ITEM = re.compile(r"^\d+[.)]\s")


def lead_line(line: str) -> bool:
    """Is the markdown ``line`` a key's lead-in on a line of its own (``Solutions:``,
    ``**Answers to the questions above:**``; emphasis marks and a trailing break read through)?"""
    return _leads(_MARKUP.sub(" ", line))


def key_list_ended(later: str, listed: bool) -> tuple[bool, bool]:
    """Reading the lines after a key's lead-in (:func:`lead_line`): ``(ended, listed)`` for the
    line ``later``, ``listed`` telling whether the key's list has begun. The key is its list:
    the first line at the margin after it that opens no item ends it (the sheet's next block)."""
    if _ITEM.match(later):
        return False, True
    return listed and bool(later.strip()) and not later[0].isspace(), listed


_LABEL = re.compile(r"^\(?(?:[a-z]|[ivx]{1,4})[).]", re.I)


def key_blocks(questions_md: str) -> int:
    """How many key blocks the sheet has: a lead-in (:func:`answers_lead`) followed, past blank
    paragraphs, by a numbered list, after a numbered list of the same section (no heading nor
    paragraph opening a part label between: answers under a part's label, ``**(a)**`` then
    ``Solutions:``, are that part's, as general.lua's ``answered_lists`` reads them)."""
    blocks = ast(questions_md)
    count, listed = 0, False
    for i, b in enumerate(blocks):
        kind = b.get("t")
        if kind == "Header" or (kind in ("Para", "Plain") and _LABEL.match(_words(b.get("c") or []).strip())):
            listed = False
        if listed and answers_lead(b):
            j = i + 1
            while j < len(blocks) and blocks[j].get("t") in ("Para", "Plain") and not _words(blocks[j]["c"]).strip():
                j += 1
            if j < len(blocks) and blocks[j].get("t") == "OrderedList":
                count += 1
        if kind == "OrderedList":
            listed = True
    return count


def _answered(q) -> bool:
    return any(p.answer.strip() or p.worked_solution.strip() or p.correct for p in q.parts)


def unkeyed_flags(questions: SheetSet, questions_md: str, solutions_md: str | None = None) -> list[Flag]:
    """A ``structure`` flag (field ``q<n>``) on each question no answer was read for, when the
    sheet holds its own answers in key blocks (:func:`key_blocks`; no separate solutions
    document): the key may count its answers
    otherwise than the list it follows, or the question be a worked example's step, or the
    answers of a block with no lead-in. ``[]`` otherwise; raises nothing."""
    if solutions_md is not None or len(questions) < 2:
        return []
    open_ = [qi for qi, q in enumerate(questions.root) if not _answered(q)]
    if not open_ or not key_blocks(questions_md):
        return []
    return [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
        f"the sheet answers its lists in key blocks after them ('Solutions:' and a list of answers), but no answer "
        f"was read for question {qi + 1}: is it a worked example's step rather than a question, are its answers "
        "counted otherwise than its list, or is it itself an answer read as a question?")) for qi in open_]
