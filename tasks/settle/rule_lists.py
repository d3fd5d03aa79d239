"""A list of rules read as questions: a doubt of the audit (:mod:`tasks.settle.audit`).

An exam's cover page often numbers its rules (``1. You have 50 minutes …``, ``2. Calculators
are allowed …``) in a list at the top level, and the questions follow in a list of their own
that numbers from 1 again. Both lists look alike to a reader that opens questions at numbered
items. The items themselves tell them apart: a question asks (a ``?``), carries its points
(``(3 pts)``, ``[4 marks]``), holds maths or asks for work (``Explain``, ``Find``, ``What``);
a rule does none of these (an asking word may slip in: ``make your answers easy to find``).
When a sheet's top-level numbered lists number from 1 each, one of them shows no ``?``, points
or maths in any item and an asking word in at most a quarter of them, and speaks to the reader
(``you``, ``your``) in half of them or more while a later one shows it in most of its items,
the questions holding the first list's items (as questions, or as one question's parts) are
flagged (:func:`rule_list_flags`): a list of
instructions read as questions?
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.settle.markers import outside_code
from tasks.settle.source_lines import SourceLines

KIND = "structure"

_TOP_ITEM = re.compile(r"^(\d+)[.)]\s+(\S.*)$")
_POINTS = re.compile(r"[(\[]\s*\d+(?:\.\d+)?\s*(?:pts?|points?|marks?|p)\.?\s*[)\]]", re.I)
_ASKING = re.compile(
    r"\b(?:what|which|why|how|explain|describe|find|compute|calculate|determine|derive|prove|show that|"
    r"interpret|estimate|sketch|plot|evaluate|solve|write down|write an?|give an?|state the|compare|justify)\b",
    re.I)

_YOU = re.compile(r"\byou(?:rs?|rself)?\b", re.I)


def top_lists(markdown: str) -> list[list[tuple[int, str]]]:
    """The top-level numbered lists of ``markdown`` (lines opening ``1.`` / ``1)`` at the left
    margin, outside code): each a list of ``(1-based line, first line's text)``; a new list opens
    wherever an item is numbered 1 or does not count on from the item before."""
    lists: list[list[tuple[int, str]]] = []
    last = None
    for n, line in outside_code(markdown):
        m = _TOP_ITEM.match(line)
        if not m:
            continue
        number = int(m.group(1))
        if number == 1 or last is None or number != last + 1:
            lists.append([])
        lists[-1].append((n, m.group(2)))
        last = number
    return lists


def asks(text: str) -> int:
    """How plainly an item's text asks: 2 for a ``?``, points or maths, 1 for a word that asks
    for an answer or work alone (``find`` may be a rule's: ``make your answers easy to find``),
    0 for none."""
    if "?" in text or "$" in text or _POINTS.search(text):
        return 2
    return 1 if _ASKING.search(text) else 0


def _rules(items: list[tuple[int, str]]) -> bool:
    """A list of rules: three items or more, none of which plainly asks, at most a quarter of
    which hold an asking word, and half or more of which speak to the reader (``you``, ``your``:
    a rule says what the reader may, must or has; a list of tasks, ``Navigate to …``, ``Create
    …``, gives orders without naming them)."""
    said = [asks(t) for _, t in items]
    spoken = sum(bool(_YOU.search(t)) for _, t in items)
    return len(items) >= 3 and max(said) < 2 and 4 * sum(said) <= len(items) and 2 * spoken >= len(items)


def rule_list_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """``structure`` flags on the questions holding items (as their text or parts) of a top-level
    numbered list of rules (:func:`_rules`: three items or more, none plainly asking), when a later top-level list that numbers from 1
    again has two items or more and most of them ask: that later list holds the questions, the
    first one rules or instructions. ``[]`` when the sheet has no such pair of lists."""
    lists = [items for items in top_lists(questions_md) if items]
    flags: list[Flag] = []
    src = SourceLines(questions_md)
    for k, items in enumerate(lists):
        if not _rules(items):
            continue
        later = next((b for b in lists[k + 1:] if len(b) >= 2 and 2 * sum(asks(t) > 0 for _, t in b) > len(b)), None)
        if later is None:
            continue
        lines = {n for n, _ in items}
        for qi, q in enumerate(questions.root):
            texts = [q.main_text] + [t for p in q.parts for t in (p.content, *p.options)]
            held = {at + 1 for t in texts if t.strip() and (at := src.find(t)) is not None} & lines
            if not held:
                continue
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"question {qi + 1} holds items of the numbered list at line {items[0][0]} ({len(items)} items), "
                f"none of which asks anything (no question mark, points, maths or asking word), while the "
                f"list numbered from 1 again at line {later[0][0]} asks in most of its items: a list of "
                "rules or instructions read as a question or its parts?")))
    return flags
