"""A reading of a sheet in one layout (:class:`Layout`, :class:`Reading`) and how well it explains
the sheet (step 3 of :mod:`tasks.read.layout`): the lines it
quotes, the markers it opens questions and parts at, numbers and labels in sequence, questions
with no text, the sheet's own markers left unused and, with solutions, the solution numbers that
name a question."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from schemas.sheet import SheetSet
from tasks.read.discovery import QUESTION_WORDS, Found, markers_used, mixed_levels, one_task_list
from tasks.read.named_sections import Section, opened as sections_opened
from tasks.read.route_b import Numbers, chrome_quoted
from tasks.settle.coverage import body_coverage, field_texts
from tasks.settle.markers import question_markers

AUTO_PRIOR = 0.05
"""The head start of the reader's own choice: a reading must score this much more to replace it."""

UNUSED = 1.0
"""What a reading loses when it opens no question at any of the sheet's question markers
(``**Exercice 8.**``, ``**✅ Do this**`` kept inside a question or left out), in proportion
to the share it leaves unused (:func:`tasks.read.discovery.markers_used`)."""


LEAD_IN = 0.25
"""What a reading loses when it parts a sheet's one numbered list from the colon that leads
into it (:func:`tasks.read.discovery.one_task_list`): the items read as questions of their
own, the lead-in left out or kept with the first alone."""

INLINE_WEIGHT = 0.05
"""The most the share of inline solutions landing one to a part adds: a tie-break between
readings that explain the sheet equally well otherwise (it never outweighs another term)."""

CONTINUED = 0.25
"""What a reading loses, in proportion, where the parts of a question number on from the last part
of the question before (``1.`` … ``10.`` under one group heading, ``11.`` … ``13.`` under the next):
a list counted across the groups numbers the sheet's questions, and the groups are chrome
(:func:`continued_parts`). Readings that open questions at a question word are not weighed."""

HELD = 0.1
"""What a headings reading of a sheet that numbers nothing loses, in proportion, for the sheet's
deeper headings its fields hold (``### Verständnisfragen``, ``#### Federpendel`` inside a
question read at ``##``): each opens
a section of the sheet that the reading keeps inside another. A tie-break between heading
levels that quote and mark the sheet alike (it never outweighs the lines or markers terms)."""

_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+\S", re.M)

INLINE_SOLUTION = re.compile(r"^:{3,}\s*\{?\s*\.?(?:solution|answer)\b", re.M)
"""The opening line of a solution div set in the sheet (``::: {.solution}``)."""


@dataclass
class Layout:
    """One reading to try: ``name`` (how flags name it), ``mode`` (``None``: the reader's own
    choice; else ``markers``, ``headings``, ``paragraphs``, ``list``, ``asking``, ``whole``, ``closing``), the
    heading ``level`` of the ``headings`` mode, and marker ``words`` found in the sheet."""

    name: str
    mode: str | None = None
    level: int | None = None
    words: tuple[str, ...] = ()
    plain: bool = False
    bold: bool = False
    closing: tuple[str, ...] = ()
    """The paragraph that closes each item (mode ``closing``: :func:`tasks.read.discovery.closing_paragraphs`)."""
    """Only bold paragraph openings open questions (a solutions document read in the marker
    kind of its questions: :func:`solutions_layout`)."""

    def prelude(self) -> str:
        """The Lua line that sets ``SHEET2LAMBDA_LAYOUT`` for this reading ('' for ``auto``)."""
        if self.mode is None and not self.words and not self.bold:
            return ""
        items = []
        if self.mode:
            items.append(f"mode = {json.dumps(self.mode)}")
        if self.level:
            items.append(f"level = {int(self.level)}")
        if self.words:
            items.append("words = {" + ", ".join(json.dumps(w, ensure_ascii=False) for w in self.words) + "}")
        if self.plain:
            items.append("plain = true")
        if self.bold:
            items.append("bold = true")
        if self.closing:
            items.append("closing = {" + ", ".join(json.dumps(w, ensure_ascii=False) for w in self.closing) + "}")
        return "SHEET2LAMBDA_LAYOUT = {" + ", ".join(items) + "}\n"


@dataclass
class Reading:
    """One layout's reading of a document: its questions, numbering (as
    :data:`tasks.read.route_b.Numbers`), score and the score's terms."""

    layout: Layout
    questions: SheetSet
    numbers: Numbers
    score: float = 0.0
    terms: dict[str, float] = field(default_factory=dict)
    no_marker: bool = False
    """The reader found no marker at all and read the sheet as one question."""


def leading_int(n: str) -> int | None:
    """The number a question number opens with (``12b`` → 12), ``None`` when none."""
    m = re.match(r"\d+", n or "")
    return int(m.group()) if m else None


_ALPHA = "abcdefghijklmnopqrstuvwxyz"
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


def _dotted_next(a: str, b: str) -> bool:
    """Does the dotted number ``b`` follow ``a`` (``1.2``→``1.3``; ``1.3``→``2.1``: the next
    group, counting from 1 again)?"""
    xs, ys = a.split("."), b.split(".")
    if len(xs) != len(ys) or not all(x.isdigit() for x in xs + ys):
        return False
    for k in range(len(xs)):
        if xs[:k] == ys[:k] and int(ys[k]) == int(xs[k]) + 1 and all(int(y) == 1 for y in ys[k + 1:]):
            return True
    return False


def _next_label(a: str, b: str) -> bool:
    """Does label ``b`` follow ``a`` (``a``→``b``, ``ii``→``iii``, ``3``→``4``, ``1.2``→``1.3``)?"""
    if a.isdigit() and b.isdigit():
        return int(b) == int(a) + 1
    if "." in a and "." in b:
        return _dotted_next(a, b)
    if a in _ROMAN and b in _ROMAN and _ROMAN.index(b) == _ROMAN.index(a) + 1:
        return True
    return len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha() and ord(b) == ord(a) + 1


def in_sequence(numbers: list[tuple[str, list[str]]], between: frozenset[int] = frozenset()) -> float:
    """The share of neighbouring question numbers that count on by one (a restart at 1 counts,
    opening a group; so does a step over numbers that ``between`` holds: the other blocks
    numbered on one counter with the questions, as lecture notes number definitions and
    exercises) and of neighbouring part labels that follow each other; 0 with nothing
    numbered."""
    steps = ok = 0
    ns = [leading_int(n) for n, _ in numbers]
    for (a, b), (x, y) in zip(zip(ns, ns[1:]), zip(numbers, numbers[1:])):
        if a is not None and b is not None:
            steps += 1
            ok += (b == a + 1 or (b == 1 and a > 1) or _dotted_next(x[0], y[0])
                   or (b > a + 1 and all(n in between for n in range(a + 1, b))))
    for _, labels in numbers:
        labs = [x for x in labels if x]
        for a, b in zip(labs, labs[1:]):
            steps += 1
            ok += _next_label(a, b)
    return ok / steps if steps else 0.0


def continued_parts(numbers: list[tuple[str, list[str]]]) -> float:
    """The share of neighbouring questions, both with numbered parts, where the next one's first
    part label is the number after the last part label of the one before (and not 1): parts
    counted on across questions. 0.0 with fewer than two such questions."""
    pairs = [(a[-1], b[0]) for (_, a), (_, b) in zip(numbers, numbers[1:])
             if a and b and a[-1].isdigit() and b[0].isdigit()]
    if not pairs:
        return 0.0
    return sum(1 for x, y in pairs if int(y) == int(x) + 1 and int(y) > 1) / len(pairs)


def score(reading: Reading, markdown: str, found: Found, solution_numbers: list[str] | None = None,
          named: list[Section] | None = None) -> float:
    """How well ``reading`` explains the document ``markdown`` (what :func:`discover` found
    in it): lines quoted + markers used to open questions and parts (in a sheet that numbers
    nothing, the headings of the level a headings reading opens its questions at) + numbers
    and labels in sequence − questions holding no text − a headings reading's share of deeper
    headings held inside its fields (:data:`HELD`); with two or more solution divs in the
    sheet, + the share of them that land one to a part; with ``solution_numbers``, + the share
    that name a question of the reading; with ``named`` (sections whose headings name tasks, one
    of them left unread by the reader's own reading: :mod:`tasks.read.named_sections`), − the
    share of them it opens no question at. Sets ``reading.score`` and ``reading.terms``; returns
    the score."""
    qs = reading.questions.root
    if not qs:
        reading.terms, reading.score = {"empty": 1.0}, -1.0
        return -1.0
    numbers = reading.numbers
    opened = sum(1 for n, _ in numbers if n) + sum(1 for _, labels in numbers for x in labels if x)
    terms = {
        "lines": lines_quoted(markdown, reading.questions),
        "markers": min(1.0, opened / found.markers()) if found.markers() else 0.0,
        "sequence": 0.5 * in_sequence(numbers, frozenset(
            n for w, ns in found.words.items() if w not in QUESTION_WORDS for n in ns)),
        "empty": -sum(1 for q in qs if not q.main_text.strip() and not any(p.content.strip() for p in q.parts)) / len(qs),
    }
    used, total = markers_used(found, [n for n, _ in numbers], field_texts(reading.questions), len(qs))
    if total >= 2:
        terms["unused"] = -UNUSED * (1 - used / total)
    level = reading.layout.level
    if reading.layout.mode == "headings" and not found.markers() and found.levels.get(level or 0, 0) >= 2:
        # a sheet that numbers nothing: its repeated headings are its only markers
        terms["markers"] = min(1.0, len(qs) / found.levels[level])
    if reading.layout.mode == "closing" and found.closed:
        # items each closed by a paragraph the sheet repeats: those paragraphs are its markers
        terms["markers"] = min(1.0, len(qs) / found.closed)
    if reading.layout.mode in ("headings", "sections", "leaves") and mixed_levels(found):
        # tasks in the innermost sections of a sheet that numbers nothing: its headings are its
        # markers, and a reading explains them by the ones it opens a question or part at
        terms["markers"] = headings_opened(reading.questions, found)
        # a section standing alone beside the groups, with text of its own, is a task of the
        # sheet: a reading that opens no question at it leaves that task unread
        alone = [_folded(t) for lv in mixed_levels(found) for t in found.alone.get(lv, [])]
        if alone:
            titles = {_folded(q.title) for q in reading.questions.root}
            terms["unused"] = -UNUSED * sum(1 for t in alone if t not in titles) / len(alone)
    if reading.layout.mode == "sections" and level and not found.markers() and not mixed_levels(found):
        terms["markers"] = sections_opened_at(reading.questions, found, level)
    if reading.layout.mode == "headings" and level and not found.markers():
        deeper = sum(1 for lv, _ in found.headings if lv > level)
        if deeper >= 2:
            held = sum(1 for t in field_texts(reading.questions) for m in _HEADING_LINE.finditer(t)
                       if len(m.group(1)) > level)
            terms["held"] = -HELD * min(1.0, held / deeper)
    if not any(w.lower() in QUESTION_WORDS for w in reading.layout.words) and continued_parts(numbers):
        terms["continued"] = -CONTINUED * continued_parts(numbers)
    if one_task_list(found):
        # a lead-in ending in a colon announces the list after it as one whole: a reading that
        # keeps no question holding the lead-in with two or more parts parts the list from it
        lead = _folded(found.led[0])[:40]
        kept = any(lead and lead in _folded(q.main_text) and len(q.parts) >= 2 for q in qs)
        if not kept:
            terms["lead_in"] = -LEAD_IN
    if named:
        terms["sections"] = -UNUSED * (1 - sections_opened(named, reading.questions))
    inline = len(INLINE_SOLUTION.findall(markdown))
    if inline >= 2:
        # solutions set in the sheet after what they answer: one to a part where the reading
        # cuts the sheet where its author did (a notebook's solution cells)
        solved = sum(1 for q in qs for p in q.parts if p.answer.strip() or p.worked_solution.strip())
        terms["inline"] = INLINE_WEIGHT * min(solved, inline) / inline
    if solution_numbers:
        have = {n for n, _ in numbers if n}
        terms["pairing"] = 0.5 * sum(1 for n in solution_numbers if n in have) / len(solution_numbers)
    if reading.layout.mode is None:
        terms["prior"] = AUTO_PRIOR
    reading.terms = terms
    reading.score = sum(terms.values())
    return reading.score


def _folded(text: str) -> str:
    return re.sub(r"[^\w]+", "", text.lower())


def headings_opened(questions: SheetSet, found: Found) -> float:
    """The share of the sheet's headings below its shallowest level (its title or top groups)
    at which ``questions`` open a question (its title is the heading's words) or a part (its
    text opens with them); 0 with no such heading."""
    if not found.headings:
        return 0.0
    top = min(lv for lv, _ in found.headings)
    wanted = [_folded(t) for lv, t in found.headings if lv > top or found.levels.get(top, 0) >= 2]
    wanted = [w for w in wanted if w]
    if not wanted:
        return 0.0
    titles = [_folded(q.title) for q in questions.root]
    parts = [_folded(p.content.splitlines()[0]) if p.content.strip() else "" for q in questions.root for p in q.parts]
    opened = [*titles, *parts]
    used = 0
    for w in wanted:
        if w in opened:
            opened.remove(w)
            used += 1
    return used / len(wanted)


def sections_opened_at(questions: SheetSet, found: Found, level: int) -> float:
    """The markers term of a ``sections`` reading (questions at the headings one level up from
    ``level``, parts at the headings of ``level``) of a sheet that numbers nothing, as
    ``\\section`` questions with ``\\subsection`` parts are once pandoc drops their counters: the
    share of the headings of those two levels at which it opens a question (its title) or a part
    (its text opens with the heading's words); 0 with no such heading."""
    uppers = [_folded(t) for lv, t in found.headings if lv == level - 1 and _folded(t)]
    lowers = [_folded(t) for lv, t in found.headings if lv == level and _folded(t)]
    if not uppers or not lowers:
        return 0.0
    titles = [_folded(q.title) for q in questions.root]
    firsts = [_folded(p.content.splitlines()[0]) if p.content.strip() else "" for q in questions.root for p in q.parts]
    used = 0
    for wanted, opened in ((uppers, titles), (lowers, firsts)):
        for w in wanted:
            if w in opened:
                opened.remove(w)
                used += 1
    return used / (len(uppers) + len(lowers))


@lru_cache(maxsize=16)
def closing_sections(markdown: str) -> int | None:
    """The 1-based line where the sheet's closing sections begin, or ``None``: when the sheet marks
    its questions with a question word (bold or heading markers: ``**Q1**.``, ``## Problem 2``)
    under a section heading (``## Questions``), the first heading after the last marker that is
    no marker and as shallow as that section's (``## Getting started with git``, a tutorial or
    notes after the questions). What follows it is not a question of the sheet by its own
    markers: no reading is rewarded for quoting it (the lines term counts the body before it)."""
    lines = markdown.splitlines()
    markers = [m for m in question_markers(markdown) if _WORD_MARKER.match(m.text)]
    if len(markers) < 2:
        return None
    above = [i for i in range(markers[0].line - 1) if _HEADING_LINE.match(lines[i])]
    if not above:
        return None
    level = len(_HEADING_LINE.match(lines[above[-1]]).group(1))
    marked = {m.line for m in markers}
    for i in range(markers[-1].line, len(lines)):
        h = _HEADING_LINE.match(lines[i])
        if h and len(h.group(1)) <= level and i + 1 not in marked:
            return i + 1
    return None


_WORD_MARKER = re.compile(r"^(?:[-*+][ \t]+)?\s*(?:\*\*|__|#{1,6}[ \t])")
"""A marker written in bold or as a heading (not a numbered list item)."""


def lines_quoted(markdown: str, questions: SheetSet) -> float:
    """The lines term of :func:`score`: the share of the sheet's body a reading quotes, less the
    chrome lines it copied. The body ends where the sheet's closing sections begin
    (:func:`closing_sections`)."""
    tail = closing_sections(markdown)
    if tail is not None:
        markdown = "\n".join(markdown.splitlines()[:tail - 1])
    texts = field_texts(questions)
    counted = max(1, sum(1 for line in markdown.splitlines() if line.strip()))
    return body_coverage(markdown, texts) - chrome_quoted(texts) / counted
