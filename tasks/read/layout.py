"""The offline reader's layout: candidate markers found in the sheet, readings scored by how
well they explain it, the runner-up kept for confidence.

The general library reader (``filters/library/general.lua``) can read a sheet in several
layouts; which one a sheet is written in is decided here, from the sheet, rather than by the
first rule that matches:

1. **Discovery** (:func:`discover`): pandoc's AST of the markdown is walked for what repeats —
   heading levels, headings and bold paragraph openings of the form *word number*
   (``Ejercicio 2``, ``Übung 3``: any word that opens two or more of them with numbers, not only
   the words the reader knows), top-level numbered lists, numbered lists restarting after
   paragraphs, headings that ask (text ending in ``?``), part labels at line starts.
2. **Readings** (:class:`Layout`): each candidate is a reading of the whole sheet
   by the general reader with that layout forced (``SHEET2LAMBDA_LAYOUT`` set before the
   filter), plus the reader's own choice (``auto``) and the sheet as one question (``whole``).
3. **Scoring** (:func:`score`): how well a reading explains the sheet — the lines it quotes
   (:func:`tasks.read.route_b.score_reading`), the markers it uses to open questions and parts,
   question numbers and part labels in sequence, questions with no text (a penalty) and, with a
   solutions document, the share of solution numbers that name a question. ``auto`` keeps a
   small head start (:data:`AUTO_PRIOR`): another reading is chosen only when it explains the
   sheet clearly better.
4. **Confidence** (:func:`runner_up_flags`): when the runner-up scores within
   :data:`CLOSE` of the chosen reading and reads a question differently (another part count,
   another opening), that question gets a ``structure`` flag naming both readings; and a run of
   questions numbered from 1 again inside the sheet's numbering, which resumes after it, is
   doubted (:func:`interrupted_flags`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.errors import FilterError
from tasks.read.discovery import Found, ast, discover, repeated_words
from tasks.read.restated import without_restatements
from tasks.read.route_b import Numbers, Pairing, chrome_quoted, merge_solutions, numbering
from tasks.read.sandbox import run_filter
from tasks.settle.coverage import body_coverage, field_texts

AUTO_PRIOR = 0.05
"""The head start of the reader's own choice: a reading must score this much more to replace it."""

LINES_MARGIN = 0.1
"""How much more of the sheet (share of its lines) another reading must quote to be weighed
against the reader's own choice."""

CLOSE = 0.03
"""A runner-up within this of the chosen reading's score is nearly as good (its disagreements
are flagged)."""



@dataclass
class Layout:
    """One reading to try: ``name`` (how flags name it), ``mode`` (``None``: the reader's own
    choice; else ``markers``, ``headings``, ``paragraphs``, ``list``, ``asking``, ``whole``), the
    heading ``level`` of the ``headings`` mode, and marker ``words`` found in the sheet."""

    name: str
    mode: str | None = None
    level: int | None = None
    words: tuple[str, ...] = ()
    plain: bool = False

    def prelude(self) -> str:
        """The Lua line that sets ``SHEET2LAMBDA_LAYOUT`` for this reading ('' for ``auto``)."""
        if self.mode is None and not self.words:
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
        return "SHEET2LAMBDA_LAYOUT = {" + ", ".join(items) + "}\n"


def _forms(found: Found, words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` as the sheet prints them (the reader lower-cases them its own way)."""
    return tuple(sorted({f for w in words for f in found.forms.get(w, {w})} | set(words)))


def candidates(found: Found) -> list[Layout]:
    """The readings worth trying for a document with ``found`` in it: always the reader's own
    (``auto``) and the whole sheet as one question; then one per kind of marker it has."""
    out = [Layout("auto")]
    words = tuple(repeated_words(found))
    if words:
        out.append(Layout("markers " + "/".join(words), "markers", words=_forms(found, words)))
    plain = tuple(repeated_words(found, plain=True))
    if plain:
        out.append(Layout("paragraphs opening " + "/".join(plain), "markers", words=_forms(found, plain), plain=True))
    levels = sorted(level for level, n in found.levels.items() if n >= 2)
    for level in levels:
        out.append(Layout(f"headings of level {level}", "headings", level=level))
    for upper, lower in zip(levels, levels[1:]):
        out.append(Layout(f"sections with parts at headings of level {lower}", "sections", level=lower))
    if found.asking >= 2:
        out.append(Layout("headings that ask as parts", "asking"))
    if found.items:
        out.append(Layout("numbered list items", "list"))
    if found.restarts >= 2:
        out.append(Layout("paragraphs with numbered parts", "paragraphs"))
    out.append(Layout("one question", "whole"))
    return out


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


def _int(n: str) -> int | None:
    m = re.match(r"\d+", n or "")
    return int(m.group()) if m else None


_ALPHA = "abcdefghijklmnopqrstuvwxyz"
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


def _next_label(a: str, b: str) -> bool:
    """Does label ``b`` follow ``a`` (``a``→``b``, ``ii``→``iii``, ``3``→``4``)?"""
    if a.isdigit() and b.isdigit():
        return int(b) == int(a) + 1
    if a in _ROMAN and b in _ROMAN and _ROMAN.index(b) == _ROMAN.index(a) + 1:
        return True
    return len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha() and ord(b) == ord(a) + 1


def in_sequence(numbers: list[tuple[str, list[str]]]) -> float:
    """The share of neighbouring question numbers that count on by one (a restart at 1 counts,
    opening a group) and of neighbouring part labels that follow each other; 0 with nothing
    numbered."""
    steps = ok = 0
    ns = [_int(n) for n, _ in numbers]
    for a, b in zip(ns, ns[1:]):
        if a is not None and b is not None:
            steps += 1
            ok += b == a + 1 or (b == 1 and a > 1)
    for _, labels in numbers:
        labs = [x for x in labels if x]
        for a, b in zip(labs, labs[1:]):
            steps += 1
            ok += _next_label(a, b)
    return ok / steps if steps else 0.0


def score(reading: Reading, markdown: str, found: Found, solution_numbers: list[str] | None = None) -> float:
    """How well ``reading`` explains the document ``markdown`` (what :func:`discover` found
    in it): lines quoted + markers used to open questions and parts + numbers and labels in
    sequence − questions holding no text; with ``solution_numbers``, + the share that name a
    question of the reading. Sets ``reading.score`` and ``reading.terms``; returns the score."""
    qs = reading.questions.root
    if not qs:
        reading.terms, reading.score = {"empty": 1.0}, -1.0
        return -1.0
    numbers = reading.numbers
    opened = sum(1 for n, _ in numbers if n) + sum(1 for _, labels in numbers for x in labels if x)
    terms = {
        "lines": lines_quoted(markdown, reading.questions),
        "markers": min(1.0, opened / found.markers()) if found.markers() else 0.0,
        "sequence": 0.5 * in_sequence(numbers),
        "empty": -sum(1 for q in qs if not q.main_text.strip() and not any(p.content.strip() for p in q.parts)) / len(qs),
    }
    if solution_numbers:
        have = {n for n, _ in numbers if n}
        terms["pairing"] = 0.5 * sum(1 for n in solution_numbers if n in have) / len(solution_numbers)
    if reading.layout.mode is None:
        terms["prior"] = AUTO_PRIOR
    reading.terms = terms
    reading.score = sum(terms.values())
    return reading.score


def read_with(filter_source: str, layout: Layout, markdown: str, role: str, numbered: bool = True,
              **limits) -> Reading:
    """The reading of ``markdown`` with ``layout`` forced on the general reader: fields and,
    with ``numbered``, numbering (the reader run twice). Raises :class:`FilterError`."""
    source = layout.prelude() + filter_source
    questions = run_filter(source, markdown, role, **limits)
    numbers = numbering(source, markdown, role, **limits) if numbered and len(questions) else []
    return Reading(layout, questions, numbers)


def lines_quoted(markdown: str, questions: SheetSet) -> float:
    """The lines term of :func:`score`: the share of the sheet's body a reading quotes, less the
    chrome lines it copied."""
    texts = field_texts(questions)
    counted = max(1, sum(1 for line in markdown.splitlines() if line.strip()))
    return body_coverage(markdown, texts) - chrome_quoted(texts) / counted


def disagreements(best: Reading, other: Reading) -> list[int]:
    """The 0-based questions of ``best`` that ``other`` reads differently: no question of
    ``other`` opens with the same text, or that question has another number of parts."""
    def key(q) -> str:
        text = q.main_text.strip() or (q.parts[0].content.strip() if q.parts else "")
        return re.sub(r"\W+", "", text.lower())[:40]

    theirs = {}
    for q in other.questions.root:
        theirs.setdefault(key(q), q)
    out = []
    for i, q in enumerate(best.questions.root):
        t = theirs.get(key(q))
        if t is None or len(t.parts) != len(q.parts):
            out.append(i)
    return out


def runner_up_flags(ranked: list[Reading]) -> list[Flag]:
    """``structure`` flags (field ``q<n>``) on the questions the runner-up reads otherwise, when
    it scores within :data:`CLOSE` of the chosen reading (``ranked``: best first)."""
    if len(ranked) < 2 or ranked[0].score - ranked[1].score > CLOSE:
        return []
    best, second = ranked[0], ranked[1]
    return [Flag(field=f"q{i + 1}", kind="structure", reason=(
        f"the sheet reads almost as well as {second.layout.name} (score {second.score:.2f}) as "
        f"{best.layout.name} (score {best.score:.2f}), and the two read this question differently: "
        "a person must check where it begins and ends and what its parts are"))
        for i in disagreements(best, second)]


def interrupted_flags(numbers: Numbers) -> list[Flag]:
    """``structure`` flags (field ``q<n>``) on the questions of a run numbered from 1 again
    inside the sheet's own numbering, which resumes after it (questions 1-6, then 1-5, then 7-9:
    a numbered list inside a question read as questions): each of the run's questions after its
    first (the first may hold the lead-in the list belongs to). ``numbers``: the chosen reading's
    numbering (:data:`tasks.read.route_b.Numbers`)."""
    ns = [_int(n) for n, _ in numbers]
    flags = []
    i = 1
    while i < len(ns):
        if ns[i] == 1 and ns[i - 1] is not None and ns[i - 1] >= 1:
            j = i
            while j + 1 < len(ns) and ns[j + 1] is not None and ns[j] is not None and ns[j + 1] == ns[j] + 1:
                j += 1
            if j + 1 < len(ns) and ns[j + 1] == ns[i - 1] + 1 and j > i:
                flags += [Flag(field=f"q{k + 1}", kind="structure", reason=(
                    f"questions {i + 1}-{j + 1} are numbered 1-{ns[j]} inside the sheet's own numbering, which runs "
                    f"on from {ns[i - 1]} to {ns[j + 1]} after them: a numbered list inside question {i + 1} read as "
                    "questions?")) for k in range(i + 1, j + 1)]
            i = j + 1
        else:
            i += 1
    return flags


def choose(filter_source: str, markdown: str, role: str = "questions",
           solution_numbers: list[str] | None = None, found: Found | None = None, **limits) -> list[Reading]:
    """Every candidate reading of ``markdown`` (:func:`candidates` of what :func:`discover`
    finds in it, or ``found`` when given), scored (:func:`score`), best first; a layout whose
    run fails is left out. Raises :class:`FilterError` when even the reader's own choice fails."""
    found = found or discover(ast(markdown))
    readings: list[Reading] = []
    seen: dict[str, Reading] = {}
    fell_back = False
    for layout in candidates(found):
        try:
            reading = read_with(filter_source, layout, markdown, role, numbered=False, **limits)
        except FilterError:
            if layout.mode is None:
                raise
            continue
        same = reading.questions.model_dump_json()
        if same in seen:
            fell_back = fell_back or (layout.mode == "whole" and seen[same].layout.mode is None)
            continue
        seen[same] = reading
        reading.terms["lines"] = lines_quoted(markdown, reading.questions)
        readings.append(reading)
    auto = readings[0]
    auto.no_marker = fell_back
    open_choice = fell_back or len(auto.questions) == 1
    ranked = []
    for r in readings:
        if r is auto or open_choice or eligible(r, auto):
            if len(r.questions):
                r.numbers = numbering(r.layout.prelude() + filter_source, markdown, role, **limits)
            score(r, markdown, found, solution_numbers)
            ranked.append(r)
    ranked.sort(key=lambda r: -r.score)
    return ranked


def eligible(reading: Reading, auto: Reading) -> bool:
    """May ``reading`` replace the reader's own choice ``auto``? Only when it quotes clearly more
    of the sheet (:data:`LINES_MARGIN`): where the reader's own layout accounts for the sheet, it
    stands. (When the reader read the sheet as one question — no marker at all, or one lone
    marker such as a dated title — every reading may, by score: :func:`choose`.)"""
    return reading.terms.get("lines", 0.0) >= auto.terms.get("lines", 0.0) + LINES_MARGIN


def solutions_layout(questions: Found, solutions: Found) -> Layout:
    """The layout a solutions document is read in: the reader's own choice, knowing the marker
    words either document repeats (a course numbers its solutions as it numbers its questions)."""
    words = tuple(dict.fromkeys(repeated_words(questions) + repeated_words(solutions)))
    return Layout("auto", None, words=_forms(questions, words) + _forms(solutions, words) if words else ())


def read_and_pair_inferred(filter_source: str, questions_md: str, solutions_md: str | None, *,
                           timeout: float = 20.0, memory_bytes: int = 1 << 30,
                           name: str = "general") -> tuple[SheetSet, Pairing]:
    """Route B's reading of a sheet with the general reader ``filter_source``, the questions'
    layout inferred (:func:`choose`, the runner-up's disagreements flagged:
    :func:`runner_up_flags`), and how its solutions were paired: the solutions document is read
    knowing the marker words either document repeats (:func:`solutions_layout`), restatements of
    the questions are cut from it (:func:`tasks.read.restated.without_restatements`), and it is
    merged as :func:`tasks.read.route_b.merge_solutions` merges. ``Pairing.layout`` names the
    layout chosen. ``timeout`` (seconds) and ``memory_bytes`` bound each filter run. Raises
    :class:`FilterError` when the reader's own reading fails."""
    limits = dict(timeout=timeout, memory_bytes=memory_bytes, name=name)
    found = discover(ast(questions_md))
    solutions = s_numbers = None
    if solutions_md is not None:
        source = solutions_layout(found, discover(ast(solutions_md))).prelude() + filter_source
        solutions = run_filter(source, solutions_md, "solutions", **limits)
        s_numbers = numbering(source, solutions_md, "solutions", **limits)
    ranked = choose(filter_source, questions_md, "questions",
                    [n for n, _ in s_numbers or [] if n] or None, found=found, **limits)
    best = ranked[0]
    flags = runner_up_flags(ranked)
    said = {f.field for f in flags}
    flags += [f for f in interrupted_flags(best.numbers) if f.field not in said]
    if (best.no_marker or best.layout.mode == "whole") and not flags:
        flags.append(Flag(field="q1", kind="structure", reason=(
            "no question marker found in the sheet (no numbered heading, bold or paragraph opening, no "
            "numbered list): it is read as one question with its text; a person must check whether it holds several")))
    if solutions is None:
        return best.questions, Pairing(flags=flags, layout=best.layout.name)
    solutions = without_restatements(solutions, best.questions, s_numbers, best.numbers)
    merged, pairing = merge_solutions(best.questions, solutions, best.numbers, s_numbers)
    pairing.flags = flags + pairing.flags
    pairing.layout = best.layout.name
    return merged, pairing
