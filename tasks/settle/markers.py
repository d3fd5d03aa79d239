"""The sheet's own structure markers, read from its markdown for the structure audit
(:mod:`tasks.settle.audit`): question markers (a heading ``## Question 3`` / ``### 2) Title`` / ``## P1.2 Title`` when
the letter opens such headings in sequence, a bold ``**Q1.**`` opening a paragraph, else a
top-level numbered item ``1.``), numbered lists
that restart at 1 after a paragraph, solution markers in a solutions document, and part
labels (``(a)``, ``b)``, ``c.``, ``(iv)``, ``(2)``) with the order they count in
(``notes/CONTRACT.md`` names the markers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUESTION_WORDS = ("question", "problem", "exercise", "task", "aufgabe", "exercice", "q", "ex", "prob")
"""The words the general reader opens a question at (``QUESTION_WORDS`` of
``filters/library/general.lua``; ``tests/hardening/test_many_questions.py`` holds them equal), the first six
the full words."""
_SOLUTION_WORDS = ("solution", "answer", "sol", "ans")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")
_BOLD = re.compile(r"^(?:[-*+][ \t]+)?\s*(?:\*\*|__)(.+?)(?:\*\*|__)")
"""A bold opening, also of a top-level bullet (``- **Q1**. Report …``: questions written as bullets)."""
_TOP_ITEM = re.compile(r"^(\d+)[.)](?:\s+|$)")
_PAREN_ITEM = re.compile(r"^\((\d+)\)(?:\s+|$)")
_WORD_NUMBER = re.compile(r"^([A-Za-z]+)\.?\s*(\d+(?:\.\d+)*[a-z]?)(.*)$")
_BARE_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)[.):]?(?:\s+(.*))?$")
_NUMBER_TITLE = re.compile(r"^(\d+)\.(?=[A-Za-z]{2})")
_PART_NAMED = re.compile(r"^([A-Za-z]+)\.?\s*(\d+)(?:\(([a-z])\)|([a-z])\)?|\s+\(?([a-z])\))(?=[\s.:,;]|$)")
"""``Problem 2(a)``, ``Problem 2a``, ``Problem 2 b)``: a marker naming part (a) of question 2
(the reader's ``**Problem 2(b)**`` goes on in question 2)."""
_BARE_PART = re.compile(r"^(\d+)(?:\s*\(([a-z])\)|([a-z])\)?)[.:]?$")
"""``1(a)``, ``1a)``: a bold run that is only question 1's part label (the reader's ``**1(b)**``)."""
_DATE = re.compile(r"^\d{1,2}\.?\s+[^\W\d_]{3,}\.?,?\s+\d{2,4}\b")
"""A heading opening with a date (``5 Sep 23 - Activity``, ``31 August 2024``): a day, a month's
name and a year, not a question number followed by a title."""
_DELIMITED = re.compile(r"^\d+(?:\.\d+)*[.):]\s+\d")
_SOLUTIONS_HEADING = re.compile(r"^(?:worked\s+)?(?:solutions?|answers?)\b", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")
_BONUS = re.compile(r"^\s*(?:extra credit|bonus(?: question| problem)?|challenge|extra)\s*[.:]?\s*"
                    r"(?:\\?[\[(][^\])]*\\?[\])])?\s*[.:]?\s*$", re.I)
"""A bold bonus label, points aside (``Extra Credit. \\[1 point\\]``, ``Bonus:``)."""

LABEL = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)*(?:\\?\((?P<p>[a-z]{1,4}|\d{1,2})\\?\)|(?P<c>[a-z]{1,4})[.)])(?=\s|$)")
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


@dataclass
class Marker:
    """A question (or solution) marker of a document: its 1-based line, the number as
    printed and the line as written."""

    line: int
    number: str
    text: str
    heading_before: bool = False
    """(a numbered item) A heading comes between it and the item before it."""


_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_NUMBER_SIGN = re.compile(r"^\\?#\s*(?=\d)")


def folded_marker(text: str) -> str:
    """A marker text as the reader reads it (``filters/library/general.lua``'s ``marker_of``):
    fullwidth forms as their ASCII characters (``Problem 1：``, typed with a CJK input method;
    Unicode's Halfwidth and Fullwidth Forms block, U+FF01–U+FF5E, is ASCII shifted by 0xFEE0),
    an ideographic space a space, and a number sign before a bare number left out (``\\#4``: a
    textbook exercise's number set in bold)."""
    return _NUMBER_SIGN.sub("", text.strip().translate(_FULLWIDTH))


def marker_number(text: str, words: tuple[str, ...] = QUESTION_WORDS) -> str | None:
    """The number a marker text names (``Question 3`` → ``3``, ``Q1.`` → ``1``, ``2) Energy``
    → ``2``, ``1.lambda`` → ``1``, ``Problem 2：`` → ``2``, ``\\#4`` → ``4``; ``""`` for a
    question word alone, ``Question``), or ``None`` when the text is no marker. ``words`` are
    the marker words."""
    text = folded_marker(text)
    if _DATE.match(text):
        return None
    if text.lower().rstrip(" :.") in QUESTION_WORDS[:6]:
        return ""  # ``#### Question``: a question marker with no number
    m = _PART_NAMED.match(text)
    if m and m.group(1).lower() in words:
        return m.group(2)
    m = _WORD_NUMBER.match(text)
    # any space closes the number, a no-break one too (`Question 1\u00a0(30 points)`, Word's)
    if m and m.group(1).lower() in words and (not m.group(3) or m.group(3)[0].isspace() or m.group(3)[0] in ".:),;"):
        return m.group(2).rstrip(".")
    m = _BARE_NUMBER.match(text)
    if m and (not (m.group(2) or "").startswith(tuple("0123456789")) or _DELIMITED.match(text)):
        return m.group(1).rstrip(".")  # ``1. 2021 Season``: a delimiter closes the number
    m = _NUMBER_TITLE.match(text)  # ``1.lambda``: a number, a dot and the title with no space
    return m.group(1) if m else None


def outside_code(markdown: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of the lines outside fenced code and ``$$`` display maths. A fence
    line that no later bare fence closes opens nothing (a chunk's fence inside an indented block,
    as pandoc writes an R Markdown chunk a list item broke): it would hide the rest."""
    out, fence, display = [], None, False
    lines = markdown.splitlines()
    for n, line in enumerate(lines, start=1):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = None
            continue
        if m and any(len(later.strip()) >= 3 and set(later.strip()) == {m.group(1)[0]} for later in lines[n:]):
            # a fence no later line closes is no fence (a fence's text inside an indented code
            # block, an R Markdown chunk a conversion broke): it hides nothing after it
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
    for n, line in outside_code(markdown):
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
    for _, line in outside_code(markdown):
        h = _HEADING.match(line)
        if h and marker_number(_ATTRIBUTES.sub("", h.group(2))) is not None:
            return True
        if not h and previous_blank and _BOLD.match(line) and marker_number(_BOLD.match(line).group(1)) is not None:
            return True
        previous_blank = not line.strip()
    return False


_ANSWER_DIV = re.compile(r"^\s*(:{3,})\s*\{?\s*\.?(?:solutions?|answers?)\b")
"""The opening line of an answer div (``::: {.solution}``, ``::: solution``)."""


def question_markers(markdown: str, solutions: bool = False) -> list[Marker]:
    """The question markers of a document, in order (see the module; ``solutions``: the
    solutions document, whose markers may also say ``Solution`` / ``Answer``). A
    ``Solutions`` / ``Answers`` heading of a questions document ends its questions; top-level
    numbered items count only in a document with no heading or bold marker, and not when a
    numbered list restarts at 1 with no heading before it (each list is then the parts of
    the paragraph before it: the reader's paragraph layout). A bold marker opens a paragraph, or
    a line after a hard line break (``**Problem 2.**\\`` after a line ending in ``\\``)."""
    words = QUESTION_WORDS + (_SOLUTION_WORDS if solutions else ()) + _letter_words(markdown)
    found: list[Marker] = []
    headed: list[str] = []  # each of ``found``: "marker" or "group" (a heading), "bold"
    items: list[tuple[Marker, str]] = []  # with its kind: ``1.``, ``1)`` or ``(1)``
    previous_blank = True
    marker_level = None
    heading_since_item = False
    answers_at = None  # a Solutions / Answers heading after question markers
    bonus: list[Marker] = []  # bold bonus labels (``**Extra Credit. [1 point]**``)
    in_answer = None  # the fence of an answer div set in a questions document (`::: {.solution}`)
    for n, line in outside_code(markdown):
        if not solutions:
            # an answer set in the sheet (a notebook's solution cells): its `**Question 2**` over
            # the reply marks no question of the sheet
            if in_answer is None and (d := _ANSWER_DIV.match(line)):
                in_answer = d.group(1)
                continue
            if in_answer is not None:
                if re.match(r"^\s*(:{3,})\s*$", line) and len(line.strip()) >= len(in_answer):
                    in_answer = None
                continue
        h = _HEADING.match(line)
        item = _TOP_ITEM.match(line) or _PAREN_ITEM.match(line)
        if h:
            heading_since_item = True
            text = _ATTRIBUTES.sub("", h.group(2))
            number = marker_number(text, words)
            group = _WORD_NUMBER.match(text)
            if number is not None and found and found[-1].number == number and _PART_NAMED.match(folded_marker(text)):
                pass  # ``### Problem 1b`` after ``### Problem 1a``: a part of the same question
            elif number is not None:
                found.append(Marker(n, number, line.strip()))
                headed.append("marker")
                marker_level = marker_level or len(h.group(1))
            elif group and not group.group(3).strip():
                found.append(Marker(n, group.group(2).rstrip("."), line.strip()))
                headed.append("group")  # ``### Section 2``: it may group the bold ``2.1)`` markers under it
            elif not solutions and answers_at is None and (found or items) and _SOLUTIONS_HEADING.match(text) and (
                    marker_level is None or len(h.group(1)) <= marker_level):
                answers_at = n
        elif previous_blank and _BOLD.match(line):
            bold = _BOLD.match(line).group(1)
            number = marker_number(bold, words)
            if number is None and (part := _BARE_PART.match(folded_marker(bold))):
                number = part.group(1)  # ``**1(a)**``: question 1, opened at its part (a)
            if number is not None and found and found[-1].number == number and (
                    _PART_NAMED.match(folded_marker(bold)) or _BARE_PART.match(folded_marker(bold))):
                pass  # ``**Problem 2(b)**`` after ``**Problem 2(a)**``: a part of the same question
            elif number is not None:
                found.append(Marker(n, number, line.strip()))
                headed.append("bold")
            elif not solutions and _BONUS.match(_BOLD.match(line).group(1)):
                bonus.append(Marker(n, "", line.strip()))
        elif item and _worded(line[item.end():]):
            kind = line[0] + line[item.end(1)] if line[0] == "(" else line[item.end(1)]
            items.append((Marker(n, item.group(1), line.strip()), kind))
            items[-1][0].heading_before = heading_since_item
            heading_since_item = False
        previous_blank = not line.strip() or line.rstrip().endswith("\\")  # a hard line break opens a line too
    last_bold = max((m.line for m, k in zip(found, headed) if k == "bold"), default=None)
    if last_bold is not None and (answers_at is None or answers_at > last_bold):
        # after the last numbered bold marker, a bold bonus label opens a question the sheet
        # does not number, as the general reader reads it
        for m in bonus:
            if m.line > last_bold and (answers_at is None or m.line < answers_at):
                found.append(m)
                headed.append("bold")
        pairs = sorted(zip(found, headed), key=lambda mk: mk[0].line)
        found, headed = [m for m, _ in pairs], [k for _, k in pairs]
    if answers_at is not None:
        # the answers to the questions before it, unless only items came before and markers
        # follow (an ``Answers to Questions`` heading over the questions themselves)
        explicit_before = any(m.line < answers_at and k != "group" for m, k in zip(found, headed))
        if explicit_before or not any(m.line > answers_at and k != "group" for m, k in zip(found, headed)):
            kept = [(m, k) for m, k in zip(found, headed) if m.line < answers_at]
            found, headed = [m for m, _ in kept], [k for _, k in kept]
            items = [(m, k) for m, k in items if m.line < answers_at]
    if any(k != "group" for k in headed):
        return _unnested(found, headed)
    items = _question_items(items)
    paragraphs = any(m.number == "1" and not m.heading_before for m in items[1:])
    return [] if paragraphs else items


_LETTER_NUMBER = re.compile(r"^([A-Z])(\d+(?:\.\d+)*)(?=\s|[.:)]|$)")


def _letter_words(markdown: str) -> tuple[str, ...]:
    """One capital letter glued to a number that opens two or more headings with rising
    numbers (``## P1.1 Title``, ``## P1.2 Title``: a question word's initial): the sheet's own
    marker word, as the reader discovers it (lower case); ``()`` when none."""
    seen: dict[str, list[tuple[int, ...]]] = {}
    for _, line in outside_code(markdown):
        h = _HEADING.match(line)
        m = h and _LETTER_NUMBER.match(_ATTRIBUTES.sub("", h.group(2)))
        if m:
            seen.setdefault(m.group(1), []).append(tuple(int(x) for x in m.group(2).split(".")))
    return tuple(w.lower() for w, ns in seen.items()
                 if len(ns) >= 2 and all(b > a for a, b in zip(ns, ns[1:])))


def _unnested(found: list[Marker], headed: list[str]) -> list[Marker]:
    """The question markers of ``found`` (each a heading ``marker``, a heading of a word and
    a number that may ``group`` markers under it, or a ``bold`` opening): without the bold
    markers numbered inside the headings above them, under two or more such headings — the
    headings' parts, as the general reader reads them (``## 1. Title`` over ``**Question
    1.1**``, or restarting at 1 under each marker heading; ``### Section 2`` over ``**2.1)**``);
    else the marker headings and bold openings, the group headings left out."""
    plain = [m for m, k in zip(found, headed) if k != "group"]
    groups: list[tuple[Marker, str, list[Marker]]] = []
    for m, k in zip(found, headed):
        if k != "bold":
            groups.append((m, k, []))
        elif not groups:
            return plain
        else:
            groups[-1][2].append(m)
    groups = [g for g in groups if g[1] == "marker" or g[2]]
    if len(groups) < 2 or not any(bolds for _, _, bolds in groups):
        return plain
    for heading, kind, bolds in groups:
        prefixed = all(b.number.startswith(heading.number + ".") for b in bolds)
        counted = kind == "marker" and all(b.number == str(i) for i, b in enumerate(bolds, start=1))
        if not (prefixed or counted):
            return plain
    return [heading for heading, _, _ in groups]


def _question_items(items: list[tuple[Marker, str]]) -> list[Marker]:
    """The top-level numbered items that number the questions: all of them, or, when the
    items of one kind (``(1)``, ``1.``, ``1)``) number on across the sheet in two runs or more
    while items of another kind restart between them (activity steps ``1.`` … ``5.`` inside ``(6)`` …
    ``(7)``), only that kind's (the general reader's question numbering)."""
    kinds = {kind for _, kind in items}
    if len(kinds) < 2:
        return [m for m, _ in items]
    running = []
    for kind in kinds:
        numbers = [int(m.number) for m, k in items if k == kind]
        runs = 1 + sum(1 for (_, a), (_, b) in zip(items, items[1:]) if a != kind and b == kind)
        runs -= items[0][1] != kind  # a run the first item of another kind does not part
        if runs >= 2 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            running.append(kind)
    if len(running) != 1:
        return [m for m, _ in items]
    return [m for m, k in items if k == running[0]]


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
