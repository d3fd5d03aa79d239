"""The sheet's own structure markers, read from its markdown for the structure audit
(:mod:`tasks.settle.audit`): question markers (a heading ``## Question 3`` / ``### 2) Title``,
a bold ``**Q1.**`` opening a paragraph, else a top-level numbered item ``1.``), numbered lists
that restart at 1 after a paragraph, solution markers in a solutions document, and part
labels (``(a)``, ``b)``, ``c.``, ``(iv)``, ``(2)``) with the order they count in
(``notes/CONTRACT.md`` names the markers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUESTION_WORDS = ("question", "problem", "exercise", "task", "aufgabe", "exercice", "q", "ex", "prob")
_SOLUTION_WORDS = ("solution", "answer", "sol", "ans")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")
_BOLD = re.compile(r"^\s*(?:\*\*|__)(.+?)(?:\*\*|__)")
_TOP_ITEM = re.compile(r"^(\d+)[.)](?:\s+|$)")
_WORD_NUMBER = re.compile(r"^([A-Za-z]+)\.?\s*(\d+(?:\.\d+)*[a-z]?)(.*)$")
_BARE_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)[.):]?(?:\s+(.*))?$")
_NUMBER_TITLE = re.compile(r"^(\d+)\.(?=[A-Za-z]{2})")
_DATE = re.compile(r"^\d{1,2}\.?\s+[^\W\d_]{3,}\.?,?\s+\d{2,4}\b")
"""A heading opening with a date (``5 Sep 23 - Activity``, ``31 August 2024``): a day, a month's
name and a year, not a question number followed by a title."""
_SOLUTIONS_HEADING = re.compile(r"^(?:worked\s+)?(?:solutions?|answers?)\b", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")

LABEL = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)*(?:\\?\((?P<p>[a-z]{1,4}|\d{1,2})\\?\)|(?P<c>[a-z]{1,4})[.)])(?=\s|$)")
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


@dataclass
class Marker:
    """A question (or solution) marker of a document: its 1-based line, the number as
    printed and the line as written."""

    line: int
    number: str
    text: str


def marker_number(text: str, words: tuple[str, ...] = _QUESTION_WORDS) -> str | None:
    """The number a marker text names (``Question 3`` → ``3``, ``Q1.`` → ``1``, ``2) Energy``
    → ``2``, ``1.lambda`` → ``1``; ``""`` for a question word alone, ``Question``), or ``None``
    when the text is no marker. ``words`` are the marker words."""
    text = text.strip()
    if _DATE.match(text):
        return None
    if text.lower().rstrip(" :.") in _QUESTION_WORDS[:6]:
        return ""  # ``#### Question``: a question marker with no number
    m = _WORD_NUMBER.match(text)
    if m and m.group(1).lower() in words and (not m.group(3) or m.group(3)[0] in " \t.:),;"):
        return m.group(2).rstrip(".")
    m = _BARE_NUMBER.match(text)
    if m and not (m.group(2) or "").startswith(tuple("0123456789")):
        return m.group(1).rstrip(".")
    m = _NUMBER_TITLE.match(text)  # ``1.lambda``: a number, a dot and the title with no space
    return m.group(1) if m else None


def _outside_code(markdown: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of the lines outside fenced code and ``$$`` display maths."""
    out, fence, display = [], None, False
    for n, line in enumerate(markdown.splitlines(), start=1):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if not display:
            out.append((n, line))  # a line opening display maths may open with a marker
        if line.count("$$") % 2 == 1:
            display = not display
    return out


def restarting_lists(markdown: str) -> list[list[Marker]]:
    """The top-level numbered lists of a document whose numbering restarts at 1 after a
    paragraph with no heading between (the reader's paragraph layout) while elsewhere the
    sheet numbers items as questions are numbered (on across a heading, from a number other
    than 1, or a list of one item): its lists may be parts or runs of questions, and the
    sheet does not say. Each list its items; ``[]`` otherwise, or when the document has
    heading or bold markers. Lists that only ever restart (every list the parts of the
    paragraph before it) are no doubt."""
    if _explicit_markers(markdown):
        return []
    lists: list[list[Marker]] = []
    heading_since_item = False
    restarts = False
    numbered_on = False  # the sheet numbers items on across a heading, or from other than 1
    for n, line in _outside_code(markdown):
        if _HEADING.match(line):
            heading_since_item = True
            continue
        m = _TOP_ITEM.match(line)
        if not m:
            continue
        if m.group(1) == "1" or not lists:
            if lists and not heading_since_item:
                restarts = True
            if m.group(1) != "1":
                numbered_on = True
            lists.append([])
        elif heading_since_item:
            numbered_on = True
        lists[-1].append(Marker(n, m.group(1), line.strip()))
        heading_since_item = False
    numbered_on = numbered_on or any(len(items) == 1 for items in lists)
    return lists if restarts and numbered_on else []


def _explicit_markers(markdown: str) -> bool:
    """Has the document a heading or bold question marker?"""
    previous_blank = True
    for _, line in _outside_code(markdown):
        h = _HEADING.match(line)
        if h and marker_number(_ATTRIBUTES.sub("", h.group(2))) is not None:
            return True
        if not h and previous_blank and _BOLD.match(line) and marker_number(_BOLD.match(line).group(1)) is not None:
            return True
        previous_blank = not line.strip()
    return False


def question_markers(markdown: str, solutions: bool = False) -> list[Marker]:
    """The question markers of a document, in order (see the module; ``solutions``: the
    solutions document, whose markers may also say ``Solution`` / ``Answer``). A
    ``Solutions`` / ``Answers`` heading of a questions document ends its questions; top-level
    numbered items count only in a document with no heading or bold marker, and not when a
    numbered list restarts at 1 with no heading before it (each list is then the parts of
    the paragraph before it: the reader's paragraph layout)."""
    words = _QUESTION_WORDS + (_SOLUTION_WORDS if solutions else ())
    found: list[Marker] = []
    items: list[Marker] = []
    previous_blank = True
    marker_level = None
    heading_since_item = False
    paragraphs = False  # numbered lists restart at 1 after a paragraph: each list is a question's parts
    for n, line in _outside_code(markdown):
        h = _HEADING.match(line)
        if h:
            heading_since_item = True
            text = _ATTRIBUTES.sub("", h.group(2))
            number = marker_number(text, words)
            if number is not None:
                found.append(Marker(n, number, line.strip()))
                marker_level = marker_level or len(h.group(1))
            elif not solutions and _SOLUTIONS_HEADING.match(text) and (
                    marker_level is None or len(h.group(1)) <= marker_level):
                break
        elif previous_blank and _BOLD.match(line):
            number = marker_number(_BOLD.match(line).group(1), words)
            if number is not None:
                found.append(Marker(n, number, line.strip()))
        elif _TOP_ITEM.match(line) and _worded(line[_TOP_ITEM.match(line).end():]):
            number = _TOP_ITEM.match(line).group(1)
            if items and number == "1" and not heading_since_item:
                paragraphs = True
            items.append(Marker(n, number, line.strip()))
            heading_since_item = False
        previous_blank = not line.strip()
    return found or ([] if paragraphs else items)


_MATHS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$")


def _worded(rest: str) -> bool:
    """Can a numbered item whose text after the number is ``rest`` open a question? Not when
    that text is there but holds no word outside maths (``1) $\\neg p$``: a list of formulas
    inside a question)."""
    return not rest.strip() or bool(re.search(r"[A-Za-z]{3,}", _MATHS.sub(" ", rest)))


def numbers_doubtful(markers: list[Marker]) -> list[tuple[Marker, str]]:
    """Markers whose number skips, repeats or runs backwards from the one before (plain
    integers only; a restart at 1 opens a new group)."""
    out = []
    for before, m in zip(markers, markers[1:]):
        if not (before.number.isdigit() and m.number.isdigit()):
            continue
        a, b = int(before.number), int(m.number)
        if b == a + 1 or b == 1:
            continue
        if b == a:
            why = f"repeats number {b}"
        elif b > a:
            why = f"skips from {a} to {b}"
        else:
            why = f"runs back from {a} to {b}"
        out.append((m, why))
    return out


def label_index(label: str, form: str) -> int | None:
    if form == "digit":
        return int(label)
    if form == "roman":
        return _ROMAN.index(label) + 1 if label in _ROMAN else None
    return ord(label) - ord("a") + 1 if len(label) == 1 else None


def label_form(labels: list[str]) -> str | None:
    """The form of a question's part labels: ``alpha``, ``roman`` or ``digit`` (``None``:
    mixed). ``i`` alone among letters is a letter; ``i``, ``ii`` … are roman numerals."""
    if all(lb.isdigit() for lb in labels):
        return "digit"
    if all(len(lb) == 1 and lb.isalpha() for lb in labels) and not set(labels) <= {"i", "v", "x"}:
        return "alpha"
    if all(lb in _ROMAN for lb in labels):
        return "roman"
    return None
