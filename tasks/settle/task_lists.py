"""Tasks written as bullets read as a question's text, and examples read as its parts: doubts of
the audit (:mod:`tasks.settle.audit`).

Worksheets often set the separate tasks of one question as a bullet list under a lead-in
(``Write the code for each operation below:`` then ``- Return the second column:``,
``- Remove the first row:``), each bullet a request of its own that ends where the answer is
to follow it (a colon) or asks a question (``?``). Where the reader keeps such a list in the
question's main text and reads no part, each task has no answer box of its own: the question
read as one when it holds several. The check: a question with no part of its own (none with
text or options) whose main text holds a bullet list of two items or more, outside code, each
one line of a few words that opens with a capital (a sentence of its own, not the lead-in
carried on) and ends in ``:`` or ``?`` — one ``structure`` flag on that question. Bullets that
end as sentences (``- Put the vectors together.``), carry nested steps or are followed by lines
of their own are the steps of one task and raise nothing.

The other way round (:func:`example_part_flags`): a question read with parts that each hold only a
caption ending in a colon and code (``1. Examples of loops:`` over a code block), asking nothing and
answered nowhere, the captions opening with one word that the paragraph before them names (``Some
examples it must accept:``), shows examples in its text that were read as its parts.
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import Question, SheetSet

KIND = "structure"

_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^[-*+]\s+(\S.*)$")
_INNER = re.compile(r"^\s+\S")
_REQUEST = re.compile(r"^[^\W\d_].*[:?]\s*$", re.UNICODE)
MAX_WORDS = 60
"""A bullet longer than this is a passage, not a task."""


def _no_parts(q: Question) -> bool:
    return len(q.parts) <= 1 and not any(p.content.strip() or p.options for p in q.parts)


def _lists(text: str) -> list[list[str]]:
    """The bullet lists of ``text`` at the margin, outside fenced code, each as its items' lines;
    a list whose item goes on over a line of its own, or nests one, is given as ``[]``."""
    out: list[list[str]] = []
    current: list[str] | None = None
    fence = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if fence or m:
            fence = None if fence and m and m.group(1) == fence else (fence or m.group(1))
            current = None
            continue
        item = _BULLET.match(line)
        if item:
            if current is None:
                current = []
                out.append(current)
            current.append(item.group(1).strip())
        elif current is not None and _INNER.match(line):
            current.append("")  # an item carried on or nesting: no list of one-line tasks
        else:
            current = None
    return [items for items in out if "" not in items]


def _requests(items: list[str]) -> bool:
    return len(items) >= 2 and all(
        _REQUEST.match(t) and t[0].isupper() and len(t.split()) <= MAX_WORDS for t in items)


def task_list_flags(questions: SheetSet) -> list[Flag]:
    """One ``structure`` flag per question with no part of its own whose main text holds a bullet
    list of requests (module docstring), naming the first item; ``[]`` when there is none. Raises
    nothing."""
    flags = []
    for qi, q in enumerate(questions.root):
        if not _no_parts(q):
            continue
        found = next((items for items in _lists(q.main_text) if _requests(items)), None)
        if found is None:
            continue
        flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"question {qi + 1} has no parts, yet its text holds {len(found)} bullets that each ask for an "
            f"answer of their own ('{found[0][:60]}' …): the question's parts read as its text? Each task "
            "may need a part and an answer box of its own")))
    return flags


_CAPTION = re.compile(r"^[^\n?]{1,80}:\s*$")
CAPTION_WORDS = 6
"""A part's first line of at most this many words, ending in a colon, is a caption."""


def _shown_only(content: str) -> bool:
    """Is ``content`` a short caption ending in a colon (``Examples of loops:``) followed by fenced
    code and nothing else?"""
    head, _, rest = content.strip().partition("\n\n")
    if not _CAPTION.match(head) or len(head.split()) > CAPTION_WORDS:
        return False
    blocks, fence, saw_code = rest.splitlines(), None, False
    for line in blocks:
        m = _FENCE.match(line)
        if fence:
            fence = None if m and m.group(1) == fence else fence
        elif m:
            fence, saw_code = m.group(1), True
        elif line.strip():
            return False
    return saw_code


_WORDS = re.compile(r"[^\W\d_]+", re.UNICODE)
STEM = 6
"""Letters of a word compared to tell one word in its forms (``Example``, ``Examples``)."""


def _named_before(main_text: str, parts: list) -> bool:
    """Do the parts' captions all open with one word (``Example of …``, ``Examples of …``) that the
    paragraph just before them names, past its first word (``Some examples it must accept:``)? The
    sheet then calls its items what they are; a lead-in that opens with the word (``Write the
    following:`` over ``Write f:``) tells the student to do it."""
    firsts = {w[0][:STEM].lower() for w in (_WORDS.findall(p.content) for p in parts) if w}
    if len(firsts) != 1:
        return False
    before = _WORDS.findall(main_text.strip().split("\n\n")[-1])
    return next(iter(firsts)) in {w[:STEM].lower() for w in before[1:]}


def example_part_flags(questions: SheetSet) -> list[Flag]:
    """One ``structure`` flag per question read with two parts or more that are each a caption and
    code alone, asking nothing, with no answer, options or solution, their captions opening with a
    word the text before them names (``Some examples:`` over ``1. Examples of loops:`` and a code
    block): a list of examples in the question's text read as its parts. Raises nothing."""
    flags = []
    for qi, q in enumerate(questions.root):
        parts = q.parts
        if len(parts) < 2 or any(p.options or p.answer.strip() or p.worked_solution.strip() for p in parts):
            continue
        if all(_shown_only(p.content) for p in parts) and _named_before(q.main_text, parts):
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"the {len(parts)} parts of question {qi + 1} each hold a caption and code alone, asking "
                f"nothing ('{parts[0].content.strip().splitlines()[0][:50]}' …): examples the question shows, "
                "read as its parts? Then they belong to its text")))
    return flags
