"""What repeats in a document, found in pandoc's AST: the candidate markers of the offline
reader's layouts (:mod:`tasks.read.layout`).

Heading levels, headings and bold paragraph openings of the form *word number* (any word that
opens two or more of them with rising numbers is a marker word of the sheet, not only the words
the reader knows), top-level numbered list items and the numbered lists inside them, lists
restarting at 1 right after a paragraph, headings that ask (ending in ``?``), and lines opening
with a part label.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from tasks.read.pandoc_ast import ast  # noqa: F401 - read here by the discovery, and imported from here
from tasks.settle.markers import LABEL, QUESTION_WORDS, folded_marker
from tasks.safe_json import json_loads

_WORD_NUMBER = re.compile(r"^([^\W\d_]+)\.?\s*(?:\\?#\s*|[Nn][or]\.\s*)?(\d+)((?:\.\d+)*)(?:\.?[a-z]?)(?=$|[\s.:),;])", re.UNICODE)
_LETTERED = ("LowerAlpha", "UpperAlpha", "LowerRoman", "UpperRoman")
_PLAIN_OPENING = re.compile(r"^([^\W\d_]+)\.?[ \t]*(\d+)[.:)](?=\s|$)", re.UNICODE)
_BARE_NUMBER = re.compile(r"^(\d+)(?:\.\d+)*[.):]?(?=\s|$)")
_TYPED_NUMBER = re.compile(r"^(\d+)[.)][ \t]+\S")
TYPED = "#"
"""The key :attr:`Found.plain` counts plain paragraphs opening with a typed number under
(``1. A SNP …``, ``2) Write …``: a Word document's questions typed, not numbered by Word);
the general reader opens a question at such a paragraph when the layout names it."""


@dataclass
class Found:
    """What repeats in a document (:func:`discover`): per heading level its heading count;
    the *word number* openings of headings and bold paragraphs (word → numbers, in order);
    bare numbered headings; top-level numbered list items; lists restarting at 1 right after
    a paragraph; headings that ask; lines opening with a part label. ``plain``: the *word
    number.* openings of plain paragraphs (``Exercise 2. Find ...``); ``forms``: each word
    (lower case) as printed."""

    levels: dict[int, int] = field(default_factory=dict)
    words: dict[str, list[int]] = field(default_factory=dict)
    plain: dict[str, list[int]] = field(default_factory=dict)
    forms: dict[str, set[str]] = field(default_factory=dict)
    bare: int = 0
    headed: int = 0
    """How many headings open with a question word and a number, or a bare number."""
    bolded: int = 0
    """How many bold paragraph openings do."""
    items: int = 0
    restarts: int = 0
    asking: int = 0
    labels: int = 0
    callouts: dict[str, int] = field(default_factory=dict)
    """Paragraphs that are only bold text with no number (``**✅ Do this**``): text → count."""
    dotted: dict[str, list[tuple[int, ...]]] = field(default_factory=dict)
    """The numbers of :attr:`words` as printed, dotted ones whole (``P2.1`` → ``(2, 1)``;
    ``Exercise 3`` → ``(3,)``): word → numbers, in order."""
    lists: int = 0
    """Top-level numbered lists (lettered ones aside)."""
    led: list[str] = field(default_factory=list)
    """The texts of the paragraphs ending in a colon that lead into them (``Add the following:``)."""
    headings: list[tuple[int, str]] = field(default_factory=list)
    """Every heading as (level, plain text), in order."""
    alone: dict[int, list[str]] = field(default_factory=dict)
    """Per level L of :attr:`sections`: the texts of the headings one level up that stand alone."""
    sections: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Per heading level L below another: how many headings one level up hold headings of level
    L in their section (groups), and how many hold none but text and a code chunk (tasks standing
    alone beside the groups: ``## Tidy data`` beside ``## Pivot functions`` over ``### gather``).
    Top-level blocks only (:func:`sections`)."""

    closers: list[str] = field(default_factory=list)
    """Short paragraphs that close item after item (a quiz bank's ``Feedback`` after each
    question and its options), lower case, without a closing colon or stop
    (:func:`closing_paragraphs`)."""
    closed: int = 0
    """How many times the sheet gives its closing paragraph (:attr:`closers`)."""

    def markers(self) -> int:
        """How many openings the document has that a reading could open a question or part at."""
        return (sum(len(v) for v in self.words.values()) + sum(len(v) for v in self.plain.values())
                + self.bare + self.items + self.labels)


def _text(inlines: list) -> str:
    """The plain text of pandoc JSON inlines (spaces and breaks as one space or a newline)."""
    out: list[str] = []
    for x in inlines:
        t = x.get("t")
        c = x.get("c")
        if t == "Str":
            out.append(c)
        elif t == "Space":
            out.append(" ")
        elif t in ("SoftBreak", "LineBreak"):
            out.append("\n")
        elif t in ("Code", "Math"):
            out.append(c[1] if t == "Code" else c[1])
        elif t in ("Emph", "Strong", "Underline", "Strikeout", "SmallCaps", "Superscript", "Subscript"):
            out.append(_text(c))
        elif t in ("Span", "Link", "Image", "Quoted"):
            out.append(_text(c[1] if t != "Link" and t != "Image" else c[1]))
    return "".join(out)


def _opening(text: str, found: Found, plain: bool = False) -> None:
    text = folded_marker(text)
    m = (_PLAIN_OPENING if plain else _WORD_NUMBER).match(text)
    if m:
        w = m.group(1).lower()
        (found.plain if plain else found.words).setdefault(w, []).append(int(m.group(2)))
        found.forms.setdefault(w, set()).add(m.group(1))
        if not plain:
            whole = (m.group(2) + m.group(3)).split(".")
            found.dotted.setdefault(w, []).append(tuple(int(x) for x in whole))
    elif plain:
        if m := _TYPED_NUMBER.match(text.strip()):
            found.plain.setdefault(TYPED, []).append(int(m.group(1)))
            found.forms.setdefault(TYPED, {TYPED})
        return
    elif _BARE_NUMBER.match(text.strip()):
        found.bare += 1


def _openings(found: Found) -> int:
    """The openings that open a question whatever the layout: a question word and a number,
    or a bare number (a title's ``GA 2.2 Report`` is neither)."""
    return sum(len(v) for w, v in found.words.items() if w in QUESTION_WORDS) + found.bare


def _nested_items(blocks: list[dict]) -> int:
    """The items of the numbered lists inside a list item (its parts), and the part labels
    opening its paragraphs' lines."""
    n = 0
    for b in blocks:
        if b.get("t") == "OrderedList":
            n += len(b["c"][1])
        elif b.get("t") in ("Para", "Plain"):
            n += sum(1 for line in _text(b["c"]).splitlines() if LABEL.match(line))
    return n


_SOLUTION_WORDS = ("solution", "solutions", "answer", "answers", "sol", "ans")


def _callout(inlines: list) -> str | None:
    """A paragraph that is only bold text, short, with no number and no closing colon (a
    label such as ``**Hint:**``), naming no solution: its text, as the reader takes it."""
    if len(inlines) != 1 or inlines[0].get("t") != "Strong":
        return None
    text = _text(inlines[0]["c"]).strip()
    first = re.match(r"[^\W\d_]*", text.lower()).group()
    if not text or len(text.encode()) > 40 or re.search(r"\d", text) or text.endswith(":") or first in _SOLUTION_WORDS:
        return None
    return text


def markers_used(found: Found, numbers: list[str], texts: list[str], questions: int) -> tuple[int, int]:
    """How many of the document's question markers a reading opens a question at, and how
    many the document has. The markers are numbered openings of a question word
    (``**Exercice 8.**``, ``# Problem 2``: opened when the reading has a question of that
    number, ``numbers``) and callouts repeated two or more times (``**✅ Do this**``: a
    reading that opens a question at one consumes it, so one quoted in a field of ``texts``
    is kept inside a question; the others count as opened up to the reading's number of
    ``questions``)."""
    words = [w for w in found.words if w in QUESTION_WORDS]
    calls = [c for c, n in found.callouts.items() if n >= 2]
    total_words = sum(len(found.words[w]) for w in words)
    total_calls = sum(found.callouts[c] for c in calls)
    used = 0
    if total_words:
        # a reading numbers Question 4.1 by its whole number 4, as discover records the marker
        have = Counter(str(int(m[0])) if (m := re.match(r"\d+", n)) else n for n in numbers if n)
        want = Counter(str(n) for w in words for n in found.words[w])
        used += sum(min(k, have[n]) for n, k in want.items())
    if total_calls:
        rx = re.compile("|".join(r"^\s*\*\*" + re.escape(c) + r"\*\*\s*$" for c in calls), re.M)
        quoted = sum(len(rx.findall(t)) for t in texts)
        used += max(0, min(questions, total_calls) - quoted)
    if found.closed:
        # the paragraph that closes each item (`Feedback`): consumed where a reading closes an
        # item at it, kept inside a question's text where it does not
        rx = re.compile(r"^\W*" + re.escape(found.closers[0]) + r"\W*$", re.M | re.I)
        quoted = sum(len(rx.findall(t)) for t in texts)
        used += max(0, min(questions, found.closed) - quoted)
    return used, total_words + total_calls + found.closed


ANSWER_DIVS = frozenset({"solution", "solutions", "answer", "answers"})
"""The classes of a div that holds an answer set in the sheet (the conversion's ``::: solution``
for a MyST ``{solution}``, a notebook's solution cells, an answer ``<div>``)."""


def discover(blocks: list[dict]) -> Found:
    """What repeats in a document's blocks (pandoc JSON; see :class:`Found`). Divs are entered
    (a sheet's own ``::: exercise`` wrappers), answer divs (:data:`ANSWER_DIVS`) not; lists and
    quotes are not (their insides are the questions' own text), except a bullet list each of
    whose items opens with a bold question marker (``- **Q1**. Report …``): its items are
    questions written as bullets, read as the general reader reads them, at the top level."""
    blocks = _marked_bullets_lifted(blocks)
    found = Found()
    previous = None
    for i, b in enumerate(blocks):
        t, c = b.get("t"), b.get("c")
        if t == "Header":
            level, inlines = c[0], c[2]
            text = _text(inlines)
            found.levels[level] = found.levels.get(level, 0) + 1
            found.headings.append((level, text))
            before = _openings(found)
            _opening(text, found)
            found.headed += _openings(found) - before
            if text.strip().endswith("?"):
                found.asking += 1
        elif t in ("Para", "Plain"):
            if callout := _callout(c):
                found.callouts[callout] = found.callouts.get(callout, 0) + 1
            if c and c[0].get("t") == "Strong":
                before = _openings(found)
                _opening(_text(c[0]["c"]), found)
                found.bolded += _openings(found) - before
            elif c:
                _opening(_text(c), found, plain=True)
            found.labels += sum(1 for line in _text(c).splitlines() if LABEL.match(line))
        elif t == "OrderedList" and c[0][1].get("t") in _LETTERED:
            found.labels += len(c[1])  # `(a)`, `i.`: a list of parts
        elif t == "OrderedList":
            found.lists += 1
            if previous in ("Para", "Plain") and _text(blocks[i - 1]["c"]).rstrip().endswith(":"):
                found.led.append(_text(blocks[i - 1]["c"]))
            found.items += len(c[1])
            found.labels += sum(_nested_items(item) for item in c[1])
            if c[0][0] == 1 and previous in ("Para", "Plain"):
                found.restarts += 1
        elif t == "Div" and set(c[0][1]) & ANSWER_DIVS:
            pass  # an answer set in the sheet: its markers (`**Question 2**` over a reply) open no question
        elif t == "Div":
            inner = discover(c[1])
            for k, v in inner.levels.items():
                found.levels[k] = found.levels.get(k, 0) + v
            found.headings += inner.headings
            for mine, theirs in ((found.words, inner.words), (found.plain, inner.plain)):
                for w, ns in theirs.items():
                    mine.setdefault(w, []).extend(ns)
            for w, ds in inner.dotted.items():
                found.dotted.setdefault(w, []).extend(ds)
            for w, fs in inner.forms.items():
                found.forms.setdefault(w, set()).update(fs)
            found.bare += inner.bare
            for k, v in inner.callouts.items():
                found.callouts[k] = found.callouts.get(k, 0) + v
            found.headed += inner.headed
            found.bolded += inner.bolded
            found.items += inner.items
            found.asking += inner.asking
            found.labels += inner.labels
        previous = t
    found.sections, found.alone = sections(blocks)
    found.closers = closing_paragraphs(blocks)
    found.closed = sum(1 for b in blocks if found.closers and _closing_key(b) == found.closers[0])
    return found


def _closing_key(b: dict) -> str | None:
    """A paragraph's words as a closing paragraph is known (lower case, no closing stop) when it
    is short (at most three words, no digit) and holds a word, not set whole in bold or italics
    (a callout, an answer slot) and not wholly in square brackets (room left for the student's
    answer), else ``None``; punctuation alone (code's ``}`` typed as text) closes no item."""
    if b.get("t") not in ("Para", "Plain"):
        return None
    if len(b["c"]) == 1 and b["c"][0].get("t") in ("Strong", "Emph"):
        return None  # a callout (`**✅ Do this**`) or an answer slot (`_Your answer here._`): the reader's own
    raw = _text(b["c"]).strip()
    if raw.startswith("[") and raw.endswith("]"):
        return None  # room left for the student's answer (`[Your comment here]`)
    text = re.sub(r"[:.]$", "", raw).lower()
    if not text or len(text.split()) > 3 or len(text) > 30 or re.search(r"\d", text):
        return None
    if not re.search(r"[^\W\d_]", text):
        return None
    return text


def closing_paragraphs(blocks: list[dict], least: int = 3) -> list[str]:
    """The paragraph that closes the sheet's items, found by repetition (``[]`` when none): a
    short paragraph (:func:`_closing_key`; no solution word, which the reader reads itself)
    given ``least`` times or more at the top level, each time after text or a list (not a
    heading), the most given first; one that only ever follows another such paragraph (a
    ``None`` given as the feedback) is that one's content, not a closer."""
    keys = [_closing_key(b) for b in blocks]
    given = Counter(k for k in keys if k)
    out = []
    for k, n in given.most_common():
        if n < least or k.split()[0] in _SOLUTION_WORDS:
            continue
        before = [keys[i - 1] if i else None for i, x in enumerate(keys) if x == k]
        if any(i == 0 or blocks[i - 1].get("t") == "Header" for i, x in enumerate(keys) if x == k):
            continue
        if all(b and given[b] >= least and b != k for b in before):
            continue
        if not _divides_a_section(blocks, keys, k):
            continue
        out.append(k)
    return out[:1]


def _divides_a_section(blocks: list[dict], keys: list[str | None], k: str) -> bool:
    """Is ``k`` given twice or more under one heading (or in a sheet with no heading)? A
    paragraph given once in each headed section (`Es demana:` before each exercise's tasks)
    divides nothing the headings do not: it is the sections' lead-in, not a closer of items."""
    section, counts = 0, Counter()
    for b, key in zip(blocks, keys):
        if b.get("t") == "Header":
            section += 1
        elif key == k:
            counts[section] += 1
    return max(counts.values(), default=0) >= 2


def _marked_bullets_lifted(blocks: list[dict]) -> list[dict]:
    """``blocks`` with each bullet list whose every item opens with a bold question marker
    (a question word of :data:`QUESTION_WORDS` and a number) replaced by its items' blocks."""
    def marked(item: list[dict]) -> bool:
        first = item[0] if item else {}
        inl = first.get("c") if first.get("t") in ("Para", "Plain") else None
        m = _WORD_NUMBER.match(_text(inl[0]["c"]).strip()) if inl and inl[0].get("t") == "Strong" else None
        return bool(m) and m.group(1).lower() in QUESTION_WORDS

    out: list[dict] = []
    for b in blocks:
        if b.get("t") == "BulletList" and b["c"] and all(marked(item) for item in b["c"]):
            out += [x for item in b["c"] for x in item]
        else:
            out.append(b)
    return out


_PROSE = ("Para", "Plain", "BulletList", "OrderedList", "BlockQuote", "Table", "LineBlock", "DefinitionList")


def sections(blocks: list[dict]) -> tuple[dict[int, tuple[int, int]], dict[int, list[str]]]:
    """:attr:`Found.sections` and :attr:`Found.alone` of a document's top-level ``blocks``
    (pandoc JSON)."""
    heads = [(i, b["c"][0]) for i, b in enumerate(blocks) if b.get("t") == "Header"]
    out: dict[int, tuple[int, int]] = {}
    texts: dict[int, list[str]] = {}
    for lower in sorted({lv for _, lv in heads}):
        upper = lower - 1
        grouped, alone = 0, []
        for k, (i, lv) in enumerate(heads):
            if lv != upper:
                continue
            end = next((j for j, l2 in heads[k + 1:] if l2 <= upper), len(blocks))
            inner = [l2 for j, l2 in heads[k + 1:] if j < end]
            if lower in inner:
                grouped += 1
            elif not inner and any(b.get("t") in _PROSE for b in blocks[i + 1:end]) \
                    and any(b.get("t") == "CodeBlock" for b in blocks[i + 1:end]):
                alone.append(_text(blocks[i]["c"][2]))
        if grouped:
            out[lower], texts[lower] = (grouped, len(alone)), alone
    return out, texts


def one_task_list(found: Found) -> bool:
    """Does the sheet hold a single numbered list, led into by a paragraph ending in a colon
    (``Add the following capabilities to the lab:``), and no numbered heading or bold marker?
    Then the list's items may be the steps of one task (a lab's parts) as well as questions:
    the reading that explains the sheet better decides (:func:`tasks.read.layout.choose`)."""
    return found.lists == 1 and len(found.led) == 1 and not found.headed and not found.bolded and not found.bare


def mixed_levels(found: Found) -> list[int]:
    """The heading levels L at which a sheet that numbers nothing sets its tasks in its innermost
    sections: two or more headings one level up group headings of level L, and at least one
    beside them holds text but no heading of level L (:attr:`Found.sections`)."""
    if found.markers():
        return []
    return [lv for lv, (grouped, alone) in sorted(found.sections.items())
            if grouped >= 2 and alone >= 1 and found.levels.get(lv, 0) >= 2]


def heading_texts(blocks: list[dict], level: int) -> list[str]:
    """The texts of the top-level headings of ``level`` in pandoc JSON ``blocks``, in order
    (each stripped)."""
    return [_text(b["c"][2]).strip() for b in blocks if b.get("t") == "Header" and b["c"][0] == level]


def repeated_words(found: Found, limit: int = 2, plain: bool = False) -> list[str]:
    """The words that open two or more headings or bold paragraphs (``plain``: plain
    paragraphs) with numbers that mostly rise (``Ejercicio 1``, ``Ejercicio 2``; dotted
    numbers compared whole, so ``P2.1``, ``P2.2`` rise): the sheet's own marker words (lower
    case), most used first (at most ``limit``)."""
    out = []
    for w, ns in (found.plain if plain else found.words).items():
        whole = None if plain else found.dotted.get(w)
        if whole and len(whole) == len(ns):
            ns = whole
        if len(ns) < 2 or len(set(ns)) < 2:
            continue
        rising = sum(1 for a, b in zip(ns, ns[1:]) if b > a)
        if rising * 2 >= len(ns) - 1:
            out.append((len(ns), w))
    return [w for _, w in sorted(out, reverse=True)[:limit]]
