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

from schemas.sheet import Part, Question, SheetSet

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_LABEL = re.compile(r"^\s*(?:#|//|%|--)\s*(\d{1,2})\s*[.)]?\s*$")
_BOLD_LABEL = re.compile(r"^\s*\*\*\s*(?:[^\W\d_]+\s+)?\(?(\d{1,2}|[A-Za-z])\)?\s*[.):]?\s*\*\*")
_RAW_HTML = re.compile(r"`<[^`>]*>`\{=html\}")
"""An inline raw HTML tag as pandoc writes it (``**`<normal>`{=html}Part A`</normal>`{=html}**``)."""


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


def labels_of(block: str, letters: bool = False) -> list[str]:
    """The task numbers a block names as what it answers (module docstring), in order; with
    ``letters`` also a single letter in a bold opening (``**Part A**.``)."""
    if _FENCE.match(block):
        return [m.group(1) for line in block.split("\n")[1:-1] if (m := _CODE_LABEL.match(line))]
    m = _BOLD_LABEL.match(_RAW_HTML.sub("", block))
    return [m.group(1)] if m and (letters or m.group(1).isdigit()) else []


def split_labelled(text: str, labels: list[str], letters: bool = False) -> dict[str, str] | None:
    """``text`` (one solution) as pieces per task label of ``labels`` (the question's parts'
    labels, numbers), or ``None`` when it names fewer than two of them, names a number the
    question does not have, or names them out of order."""
    named: dict[str, list[str]] = {}
    lead: list[str] = []
    last: str | None = None
    for block in blocks(text):
        found = labels_of(block, letters)
        if not found:
            (lead if last is None else named[last]).append(block)
            continue
        for x in found:
            x = next((lb for lb in labels if lb.casefold() == x.casefold()), x)
            if x not in labels or (last is not None and labels.index(x) <= labels.index(last)):
                return None
            named[x] = [block]
            last = x
    seen = list(named)
    if len(seen) < 2:
        return None
    first = seen[0]
    named[first] = lead + named[first]
    return {k: "\n\n".join(v) for k, v in named.items()}


def split_solutions(q: Question, labels: list[str], letters: bool = False) -> Question:
    """``q`` with a solution that names its tasks' numbers (module docstring) cut into pieces,
    each on the part of that label. ``labels``: the parts' labels as printed (one per part),
    numbers, or with ``letters`` also single letters (``**Part A**.``, ``**(b)**``)."""
    kind = (lambda lb: lb.isdigit() or len(lb) == 1 and lb.isalpha()) if letters else str.isdigit
    if len(labels) != len(q.parts) or len(q.parts) < 2 or not all(kind(lb) for lb in labels):
        return q
    for field in ("worked_solution", "answer"):
        texts = {getattr(p, field) for p in q.parts if getattr(p, field).strip()}
        if len(texts) != 1:
            continue
        text = texts.pop()
        pieces = split_labelled(text, labels, letters)
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


def split_whole_solutions(solutions: SheetSet, s_numbers: list | None, questions: SheetSet,
                          q_numbers: list | None) -> tuple[SheetSet, list | None]:
    """A separate solutions reading with each one-piece solution of a question of several
    labelled parts cut where it names them in its own writing (bold openings ``**Part A**.``,
    ``**2.**``, a code comment ``# 2``: :func:`split_solutions` with letters), so each piece
    pairs with its part by label instead of sitting whole on the first. Solutions go to
    questions by number when :func:`tasks.read.route_b.pairs_by_number`, else by position;
    ``s_numbers`` gets the labels of each split solution. The inputs are not changed."""
    from tasks.read.route_b import pairs_by_number

    if not q_numbers or len(q_numbers) != len(questions.root):
        return solutions, s_numbers
    by_number = pairs_by_number(q_numbers, s_numbers)
    index = {n: i for i, (n, _) in enumerate(q_numbers)}
    out, numbers = solutions.model_copy(deep=True), [list(x) for x in s_numbers] if s_numbers else None
    for si, sq in enumerate(out.root):
        own = s_numbers[si] if s_numbers and si < len(s_numbers) else ("", [])
        qi = index.get(own[0]) if by_number else si
        if qi is None or qi >= len(questions.root) or len(sq.parts) != 1 or any(own[1]):
            continue
        labels = q_numbers[qi][1]
        if len(labels) < 2 or len(labels) != len(questions.root[qi].parts):
            continue
        probe = Question(parts=[sq.parts[0]] + [Part() for _ in labels[1:]])
        split = split_solutions(probe, labels, letters=True)
        if split is probe:
            continue
        out.root[si] = sq.model_copy(update={"parts": split.parts})
        if numbers is not None and si < len(numbers):
            numbers[si] = (own[0], list(labels))
    return out, [tuple(x) for x in numbers] if numbers is not None else None
