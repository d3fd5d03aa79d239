"""Part labels run together with their question's number (``1a)``, ``1b)``, ``2a)``): parts.

A sheet may label each part with its question's number and a letter, run together (``1a) Find
the derivative.``, ``1b. Find the minimum.``, ``2(a) How high …``), with no list and no other
marker for the question. The reader knows ``(a)`` and ``a)`` at a paragraph's start, not these:
it reads the paragraphs as the question's text, or the whole sheet as one question. The labels
say both things at once, and they repeat: when a question's text holds two or more paragraphs
opening with such a label (:data:`JOINED`), each number's letters in sequence from ``a`` and the
numbers in sequence, each number is a question and each letter its part
(:func:`with_joined_parts`). The text before a number's first part is its question's text; a
paragraph between two parts that carries on the one before (lower case, display maths, code)
stays with it, any other leads into what follows (the next part, or the next question's text).
"""

from __future__ import annotations

import re

from schemas.sheet import Part, Question, SheetSet

JOINED = re.compile(r"^(?:\*\*|__)?(\d{1,3})(?:([a-z])[.)]|\(([a-z])\))(?:\*\*|__)?[ \t]+(?=\S)")
"""A paragraph opening with a question's number and a part's letter run together: ``1a)``,
``1a.``, ``1(a)`` (bold too), then the part's text."""

_BREAK = re.compile(r"\n\s*\n")


def _carries_on(paragraph: str) -> bool:
    """Does a paragraph carry on the text before it (lower case, display maths, code, indented)?"""
    return paragraph[:1].islower() or paragraph.startswith(("$$", "```", "~~~", "    ", "\\[", "!["))


def _split(text: str) -> list[tuple[int, str, list[str]]] | None:
    """The questions a text holding joined labels is: ``(number, stem, [part texts])`` each, or
    ``None`` when it holds fewer than two such paragraphs or their numbers or letters are out of
    sequence."""
    paragraphs = [p.strip() for p in _BREAK.split(text) if p.strip()]
    labelled = [(i, JOINED.match(p)) for i, p in enumerate(paragraphs)]
    labelled = [(i, int(m.group(1)), m.group(2) or m.group(3), m.end()) for i, m in labelled if m]
    if len(labelled) < 2:
        return None
    numbers = list(dict.fromkeys(n for _, n, _, _ in labelled))
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    for n in numbers:
        letters = [lt for _, m, lt, _ in labelled if m == n]
        if letters != [chr(ord("a") + k) for k in range(len(letters))]:
            return None
    out: list[tuple[int, str, list[str]]] = []
    lead = paragraphs[:labelled[0][0]]
    for k, (i, n, _, at) in enumerate(labelled):
        if not out or out[-1][0] != n:
            out.append((n, "\n\n".join(lead), []))
            body = [paragraphs[i][at:]]
        else:
            body = lead + [paragraphs[i][at:]]
        lead = []
        last = k + 1 == len(labelled)
        for p in paragraphs[i + 1:labelled[k + 1][0] if not last else len(paragraphs)]:
            if last or (not lead and _carries_on(p)):
                body.append(p)
            else:
                lead.append(p)
        out[-1][2].append("\n\n".join(body))
    return out


def with_joined_parts(questions: SheetSet, numbers: list) -> tuple[SheetSet, list, bool]:
    """``questions`` and their ``numbers`` (one each, or ``[]``) with each question with no
    parts of its own whose main text holds joined labels (module docstring) read as the
    questions and parts they label; also whether anything changed."""
    qs, nums, changed = [], [], False
    aligned = len(numbers) == len(questions.root)
    for qi, q in enumerate(questions.root):
        own = [p for p in q.parts if p.content.strip() or p.options or p.answer.strip() or p.worked_solution.strip()]
        split = None if own else _split(q.main_text)
        printed = numbers[qi][0] if aligned else ""
        if split is None or (len(split) > 1 and len(questions.root) > 1) or (
                printed.isdigit() and int(printed) != split[0][0]):
            qs.append(q)
            nums.append(numbers[qi] if aligned else None)
            continue
        changed = True
        for k, (n, stem, parts) in enumerate(split):
            title = q.title if k == 0 else ""
            qs.append(Question(title=title, main_text=stem, parts=[Part(content=p) for p in parts]))
            labels = [chr(ord("a") + j) for j in range(len(parts))]
            nums.append((numbers[qi][0] if aligned and len(split) == 1 else str(n), labels))
    return SheetSet(qs), [n for n in nums if n is not None] if aligned else numbers, changed
