"""A group heading with no question under it: its text is one question.

A sheet may group its questions under headings it repeats with labels in sequence (``**Part A**``
over ``A1.``, ``A2.``; ``**Part B**`` over ``B1.``-``B3.``), and give one group a single task with
no label of its own (``**Part C** (20 points)`` over one paragraph, ``Answer review questions 7.1
…``). A reader that opens questions at the labelled tasks reads that task as text of the question
before it (or as chrome). The groups say what it is: when two groups or more each hold a question
and one group after the first question holds none, while its text asks in prose (:func:`asks`; code
and printed output ask nothing), that text is a question of its own, numbered by the group's label
(:func:`with_bare_groups`), unless a question of the reading already opens with it.

Group headings are found in the markdown (:func:`group_headings`): paragraphs or headings that
open with one word and a label (a capital, a roman or arabic number), bold or as a heading at the
left margin (a bold ``**Model 2:**`` inside a list item labels output, not a group), the word the
same in two or more of them and the labels in sequence from the first; the word no question word
(``Question 2`` is a question's own marker: :data:`tasks.settle.markers.QUESTION_WORDS`), and no
heading holding a question's title (``# Problema 2: EEVDF``: the reading opens its questions there).
"""

from __future__ import annotations

import re

from schemas.sheet import Part, Question, SheetSet
from tasks.settle.markers import QUESTION_WORDS, label_form, label_index
from tasks.settle.rule_lists import asks
from tasks.settle.source_lines import SourceLines, question_starts

_HEADING = re.compile(r"^(?:#{1,6}\s+|\*\*|__)(?P<word>[A-Za-z]+)\s+(?P<label>[A-Z]|[IVX]+|\d+)\b[.:]?(?:\*\*|__)?(?P<rest>.*)$")
_BREAK = re.compile(r"\n\s*\n")


def group_headings(markdown: str) -> list[tuple[int, str]]:
    """The sheet's group headings (module docstring): ``(0-based line, label)`` each, in order;
    ``[]`` when no word opens two or more of them with labels in sequence from the first."""
    found: dict[str, list[tuple[int, str]]] = {}
    for n, line in enumerate(markdown.splitlines()):
        m = _HEADING.match(line)
        if m and not line[:1].isspace() and (line.startswith("#") or "**" in line or "__" in line):
            found.setdefault(m.group("word").lower(), []).append((n, m.group("label")))
    for word, heads in found.items():
        if word in QUESTION_WORDS or word.rstrip("s") in QUESTION_WORDS:
            continue  # (``### Question 2`` opens a question: no group)
        labels = [lb.lower() for _, lb in heads]
        form = label_form(labels) if len(labels) >= 2 else None
        if form and [label_index(lb, form) for lb in labels] == list(range(1, len(labels) + 1)):
            return heads
    return []


def _prose(text: str) -> str:
    """``text`` without its code: fenced blocks and lines indented four spaces or more (a
    program's printed output asks nothing, whatever its ``?`` and ``$``)."""
    text = re.sub(r"(?ms)^(```|~~~).*?^\1[^\n]*$", "", text)
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith(("    ", "\t")))


def _body(lines: list[str], start: int, end: int) -> str:
    """The text of lines ``start`` (the heading's) to ``end``, without the heading line."""
    return "\n".join(lines[start + 1:end]).strip()


def with_bare_groups(questions: SheetSet, numbers: list, markdown: str) -> tuple[SheetSet, list]:
    """``questions`` and their ``numbers`` (one each, or ``[]``) with a question for each group
    of :func:`group_headings` that holds no question's opening while two groups or more do, when
    it comes after the first question and its text asks something: its text (the lines under
    its heading up to the next group heading or the end) is cut from the question before it,
    whose last text it ended, and becomes a question after that one, numbered by the group's
    label. Unchanged otherwise."""
    heads = group_headings(markdown)
    if len(heads) < 3 or not questions.root:
        return questions, numbers
    lines = markdown.splitlines()
    starts = question_starts(questions, SourceLines(markdown))
    if any(s is None for s in starts):
        return questions, numbers
    spans = [(at, lb, heads[k + 1][0] if k + 1 < len(heads) else len(lines)) for k, (at, lb) in enumerate(heads)]
    held = [[qi for qi, s in enumerate(starts) if at < s < end] for at, _, end in spans]
    if sum(bool(h) for h in held) < 2:
        return questions, numbers
    titles = [re.sub(r"\W+", "", q.title.lower()) for q in questions.root if q.title.strip()]
    if any(t and t in re.sub(r"\W+", "", lines[at].lower()) for at, _, _ in spans for t in titles):
        return questions, numbers  # the headings title the reading's questions: its markers, no groups
    opened = {re.sub(r"\W+", "", t.lower())[:40] for q in questions.root
              for t in [q.main_text] + [p.content for p in q.parts] if t.strip()}
    qs, nums = list(questions.root), list(numbers)
    for (at, label, end), inside in reversed(list(zip(spans, held))):
        body = _body(lines, at, end)
        before = [qi for qi, s in enumerate(starts) if s < at]
        if inside or not before or not body or not asks(_prose(body)):
            continue
        if re.sub(r"\W+", "", body.lower())[:40] in opened:
            continue  # (a question of the reading opens with this text already)
        qi = before[-1]
        qs[qi] = _without_tail(qs[qi], _BREAK.split(body)[0].strip(), lines[at].strip())
        qs.insert(qi + 1, Question(main_text=body, parts=[Part()]))
        if len(nums) == len(questions.root):
            nums.insert(qi + 1, (label, [""]))
    return SheetSet(qs), nums if len(nums) == len(qs) else numbers


def _without_tail(question: Question, first: str, heading: str) -> Question:
    """``question`` with its last text cut where the group's heading (or its first paragraph)
    starts, when that text holds it; unchanged otherwise."""
    fields = [(None, "main_text")] + [(i, n) for i in range(len(question.parts))
                                      for n in ("content", "answer", "worked_solution")]
    for i, name in reversed(fields):
        text = getattr(question if i is None else question.parts[i], name)
        if not text.strip():
            continue
        at = max(text.find(heading), -1) if heading in text else text.find(first)
        if at <= 0:
            return question
        cut = text[:at].rstrip()
        if i is None:
            return question.model_copy(update={"main_text": cut})
        parts = list(question.parts)
        parts[i] = parts[i].model_copy(update={name: cut})
        return question.model_copy(update={"parts": parts})
    return question
