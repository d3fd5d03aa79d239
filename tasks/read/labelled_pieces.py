"""One solution after a question's numbered tasks that names the task each of its pieces
answers: split there, each piece to its part.

A notebook's answer cells often follow all of an exercise's tasks at once, one cell per task,
and say which task each answers in the answer's own writing: a code cell's comment line holding
only the number (``#1``, ``# 2``) or a paragraph opening with a bold marker and the number
(``**Question 4**``, ``**2.**``). The reader lands such a solution on the last task (or on every
task, when it answers a list together); the pieces are cut at those labels instead, whole blocks
(paragraphs, code blocks) each, so every piece stays a quote of the sheet. Blocks before the
first label go with the first labelled piece; a block with no label goes on with the piece before
it; a code block naming several numbers (one cell answering tasks 1-4) answers each of them whole.
"""

from __future__ import annotations

import re

from schemas.sheet import Question

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_LABEL = re.compile(r"^\s*(?:#|//|%|--)\s*(\d{1,2})\s*[.)]?\s*$")
_BOLD_LABEL = re.compile(r"^\s*\*\*\s*(?:[^\W\d_]+\s+)?(\d{1,2})\s*[.):]?\s*\*\*")


def blocks(text: str) -> list[str]:
    """``text`` (markdown) cut into its top-level blocks: fenced code blocks whole, other text
    at blank lines."""
    out: list[str] = []
    cur: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            if cur:
                out.append("\n".join(cur))
            cur, fence = [line], m.group(1)
            continue
        if fence is not None:
            cur.append(line)
            if line.strip().startswith(fence[0] * len(fence)) and len(cur) > 1 and not line.strip().strip(fence[0]):
                out.append("\n".join(cur))
                cur, fence = [], None
            continue
        if line.strip():
            cur.append(line)
        elif cur:
            out.append("\n".join(cur))
            cur = []
    if cur:
        out.append("\n".join(cur))
    return out


def labels_of(block: str) -> list[str]:
    """The task numbers a block names as what it answers (module docstring), in order."""
    if _FENCE.match(block):
        return [m.group(1) for line in block.split("\n")[1:-1] if (m := _CODE_LABEL.match(line))]
    m = _BOLD_LABEL.match(block)
    return [m.group(1)] if m else []


def split_labelled(text: str, labels: list[str]) -> dict[str, str] | None:
    """``text`` (one solution) as pieces per task label of ``labels`` (the question's parts'
    labels, numbers), or ``None`` when it names fewer than two of them, names a number the
    question does not have, or names them out of order."""
    named: dict[str, list[str]] = {}
    lead: list[str] = []
    last: str | None = None
    for block in blocks(text):
        found = labels_of(block)
        if not found:
            (lead if last is None else named[last]).append(block)
            continue
        for x in found:
            if x not in labels or (last is not None and int(x) <= int(last)):
                return None
            named[x] = [block]
            last = x
    seen = list(named)
    if len(seen) < 2:
        return None
    first = seen[0]
    named[first] = lead + named[first]
    return {k: "\n\n".join(v) for k, v in named.items()}


def split_solutions(q: Question, labels: list[str]) -> Question:
    """``q`` with a solution that names its tasks' numbers (module docstring) cut into pieces,
    each on the part of that label. ``labels``: the parts' labels as printed (one per part)."""
    if len(labels) != len(q.parts) or len(q.parts) < 2 or not all(lb.isdigit() for lb in labels):
        return q
    for field in ("worked_solution", "answer"):
        texts = {getattr(p, field) for p in q.parts if getattr(p, field).strip()}
        if len(texts) != 1:
            continue
        text = texts.pop()
        pieces = split_labelled(text, labels)
        if pieces is None:
            continue
        parts = []
        for p, lb in zip(q.parts, labels):
            mine = getattr(p, field)
            if mine and mine != text:
                return q
            parts.append(p.model_copy(update={field: pieces.get(lb, "")}))
        return q.model_copy(update={"parts": parts})
    return q
