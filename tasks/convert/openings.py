"""How many questions a document's markdown opens, counted cheaply (standard library only, as
:mod:`tasks.settle.markers` it takes the question words from is).

A set holds at most :data:`tasks.convert.bounds.MAX_QUESTIONS` questions; a document that
opens more than that of one kind (:func:`count_openings`) is refused before pandoc or any
reader runs (:func:`tasks.convert.bounds.check_openings`; on a command line before Prefect
starts: :mod:`commandline.sheet_checks`). The library filters read 30,000 ``## Question N``
of a 1 MB sheet into their time limits, one candidate layout after another, and so answered
after about two minutes, naming the time limit (attack 11, C37).
"""

from __future__ import annotations

import re
from collections import Counter

from tasks.settle.markers import QUESTION_WORDS  # the general reader's words (standard library only)

_ATTRIBUTE = r"""(?:[#.][^\s{}"'=#.]+|[A-Za-z_][\w.:-]*=(?:"[^"\n]*"|'[^'\n]*'|[^\s"'{}]+))"""
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*(?:\{=[^\s{}]+\}|[^`{\s]*[ \t]*(?:\{[ \t]*(?:"
                         + _ATTRIBUTE + r"(?:[ \t]+" + _ATTRIBUTE + r")*)?[ \t]*\})?)[ \t]*$")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
_BLOCK_LINE = re.compile(r"[ \t]*|#{1,6}(?:[ \t][^\n]*)?")


_FENCE_LINE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[^\n]*", re.M)

MAX_FENCES = 2_000
"""Most lines a document may hold that could open or close fenced code (three backticks or
tildes after at most three spaces): the corpora's most is 86 (187 markdown texts of
../shared/corpus and tests/corpus, notebooks' markdown cells); each is judged one at a time, so
300,000 of them took the count many seconds (attack19)."""


def count_fences(text: str) -> int:
    """The lines of markdown ``text`` that could open or close fenced code (:data:`MAX_FENCES`)."""
    return len(_FENCE_LINE.findall(text))


def code_spans(text: str) -> list[tuple[int, int]]:
    """Where in markdown ``text`` (character offsets, end exclusive) pandoc's markdown reader
    (pandoc 3, ``markdown``, ``codeBlockFenced`` of ``Text.Pandoc.Readers.Markdown``) reads
    fenced code, fence lines included: an opening of three or more backticks or tildes after at
    most three spaces, then at most a language word (no space, backtick or ``{``) and a
    well-formed ``{…}`` of attributes (or a raw ``{=format}``), nothing else; a tilde fence only
    where a block begins (after a blank line, a heading or another fence), a backtick one
    anywhere; closed by a line of at least as many of the same character (again after at most
    three spaces, then blank space only). An opening that is never closed is no fence: pandoc
    reads it as text (attack19: ``~~~ two words``, ``~~~ {r}``, an unclosed ``~~~`` and a
    closing fence indented past the one the regular expression before this looked for each hid
    openings from the count).

    Only the lines that could be fences are visited (:func:`count_fences`, bounded by
    :data:`MAX_FENCES` in :func:`count_problem`), with a table of the longest closing line after
    each: linear in them (a regular expression with ``.*?`` between fences read 2 MB of
    unclosed fences for minutes)."""
    found = [(m.start(), m.end(), m.group()) for m in _FENCE_LINE.finditer(text)]
    closing = [(m.group(1)[0], len(m.group(1))) if (m := _FENCE_CLOSE.match(line)) else None for _, _, line in found]
    longest = {"`": [0] * (len(found) + 1), "~": [0] * (len(found) + 1)}  # the longest closing at or after each
    for i in range(len(found) - 1, -1, -1):
        longest["`"][i], longest["~"][i] = longest["`"][i + 1], longest["~"][i + 1]
        if closing[i]:
            c, size = closing[i]
            longest[c][i] = max(longest[c][i], size)
    spans, i, fence_end = [], 0, -1
    while i < len(found):
        start, _, line = found[i]
        m = _FENCE_OPEN.match(line)
        if m and (m.group(1)[0] == "`" or _block_may_start(text, start, fence_end)):
            c, size = m.group(1)[0], len(m.group(1))
            if longest[c][i + 1] >= size:
                j = i + 1
                while not (closing[j] and closing[j][0] == c and closing[j][1] >= size):
                    j += 1
                spans.append((start, found[j][1]))
                i, fence_end = j + 1, found[j][1]
                continue
        i += 1
    return spans


def _block_may_start(text: str, start: int, fence_end: int) -> bool:
    """Whether a block may begin at offset ``start`` (a line's start): the text's first line,
    after a blank line or a heading, or right after a fence ending at ``fence_end``."""
    if start == 0 or start - 1 == fence_end:
        return True
    before = text.rfind("\n", 0, start - 1) + 1
    return bool(_BLOCK_LINE.fullmatch(text, before, start - 1))


def outside_code(text: str) -> str:
    """Markdown ``text`` with what pandoc reads as fenced code (:func:`code_spans`) left out,
    its line breaks kept."""
    parts, at = [], 0
    for a, b in code_spans(text):
        parts += [text[at:a], "\n" * text.count("\n", a, b)]
        at = b
    return "".join(parts) + text[at:]


_WORD = re.compile(r"^(?:#{1,6}[ \t]+)?(?:\*\*|__)?[ \t]*(?:" + "|".join(QUESTION_WORDS) + r")\.?[ \t]*\d",
                   re.I | re.M)
_HEADING = re.compile(r"^(#{1,6})[ \t]", re.M)
_NUMBERED_ITEM = re.compile(r"^\(?\d+[.)][ \t]", re.M)
_MATHS = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$[^$\n]+?\$|\\\(|\\\[|\\begin\{(?:equation|align|gather|multline|eqnarray)", re.S)
MAX_MATHS = 10_000
"""Most maths spans a document may hold: the corpora's most is 432 (``exo.tex``; 270 text sheets of ../shared/corpus and tests/corpus), and each
route B reading of 60,000 (a 1.4 MB sheet) cost pandoc 10-16 s and 600 MB, one reading after another
(attack13 C26)."""


_NOTE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]{1,999}\]:", re.M)
MAX_NOTES = 1_000
"""Most footnote and link-reference definitions (``[^1]: …``, ``[label]: https://…``) a document
may hold: the corpora's most is 1 (270 text sheets of ../shared/corpus and tests/corpus). A
1.1 MB sheet citing 20,000 footnotes and 20,000 reference links ran the markdown stage and then
route B into its 60 s limit, 330 s before its one line (attack17 C07)."""


SLOW_OPENERS = (("[", re.compile(r"\["), 3_000, "'[' brackets"),
                ("![", re.compile(r"!\["), 1_000, "'![' image openers"),
                ("<", re.compile(r"<[A-Za-z/!?]"), 5_000, "'<' tag openers"),
                ("|", re.compile(r"\|"), 20_000, "'|' table cell bars"))
"""Characters pandoc's markdown reader backtracks over, with the most a document may hold:
the corpora's most (434 distinct texts: sheets of ../shared/corpus and tests/corpus and their
built ``source.md``) is 219 ``[``, 25 ``![``, 2,426 ``<`` and 1,585 ``|`` (a README's tables).
Pandoc alone took over 120 s on 10,000 unclosed ``[``, ``<a `` or ``![`` (attack18 C07: 150,000
``[``, 60,000 ``<a ``, 50,000 ``![`` and a 400 x 400 pipe table each ran route B's readings
into their time limits, ~5 min before the one line)."""


def count_slow(text: str) -> tuple[int, int, str] | None:
    """The first of :data:`SLOW_OPENERS` that markdown ``text`` (outside fenced code) holds more
    of than its bound: ``(count, bound, what)``, else ``None``. A regular expression each (about
    0.05 s for 1 MB)."""
    return _slow(outside_code(text))


def _slow(text: str) -> tuple[int, int, str] | None:
    for _, rx, bound, what in SLOW_OPENERS:
        n = len(rx.findall(text))
        if n > bound:
            return n, bound, what
    return None


def count_openings(text: str) -> tuple[int, str]:
    """The most question openings of one kind in markdown ``text``, and that kind in words:
    lines (outside fenced code: :func:`code_spans`) opening with a question word and a number (``## Question 12``,
    ``**Exercise 3.**``, ``Q12.``: :data:`QUESTION_WORDS`), headings of one level, or numbered
    list items at the line's start (a list's items, not those nested in one), each what some
    reading opens a question at; a sheet has tens. Regular expressions over the whole text:
    about 0.15 s for 1 MB."""
    return _openings(outside_code(text))


def _openings(text: str) -> tuple[int, str]:
    level, headings = (Counter(_HEADING.findall(text)).most_common(1) or [("#", 0)])[0]
    return max((len(_WORD.findall(text)), "question openings (a question word and a number)"),
               (headings, f"headings of level {len(level)}"),
               (len(_NUMBERED_ITEM.findall(text)), "numbered list items"))


CODE_FACTOR = 2
"""Openings of one kind counted with fenced code too may be at most this many times a set's
questions: the corpora's most is 107 (a notebook's ``#`` comments; 187 markdown texts of
../shared/corpus and tests/corpus, notebooks' markdown cells), so no sheet is refused by it,
while a fence :func:`code_spans` reads where pandoc does not can hide at most this many."""


def notebook_markdown(nb: object) -> str:
    """The markdown a notebook (its parsed JSON) gives pandoc's reader: its markdown cells'
    sources, a blank line between cells (code and raw cells are code and raw blocks to pandoc:
    no question opens in them); ``""`` for anything that is not a notebook's shape."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    texts = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "markdown":
            source = cell.get("source")
            texts.append("".join(x for x in source if isinstance(x, str)) if isinstance(source, list)
                         else source if isinstance(source, str) else "")
    return "\n\n".join(texts)


def count_maths(text: str) -> int:
    """The maths spans of markdown ``text`` outside fenced code: ``$…$``, ``$$…$$``, and the
    openers ``\\(``, ``\\[`` and ``\\begin{equation}`` (and its kin); an estimate by regular
    expressions (about 0.1 s for 1 MB), compared with :data:`MAX_MATHS`."""
    return len(_MATHS.findall(outside_code(text)))


def count_notes(text: str) -> int:
    """The footnote and link-reference definitions of markdown ``text`` outside fenced code:
    lines opening (after at most three spaces) with ``[label]:`` or ``[^label]:``; compared
    with :data:`MAX_NOTES`. A regular expression over the whole text (about 0.05 s for 1 MB)."""
    return len(_NOTE_DEFINITION.findall(outside_code(text)))


def count_problem(text: str, max_questions: int) -> str | None:
    """What is wrong with markdown ``text``'s counts, in the words of its one line (after the
    file's name), or ``None``: more than ``max_questions`` openings of one kind
    (:func:`count_openings`), more than :data:`MAX_FENCES` possible fences, or more than :data:`CODE_FACTOR` times that counting fenced code
    too, more than :data:`MAX_MATHS` maths spans (:func:`count_maths`) or
    more than :data:`MAX_NOTES` footnote and link definitions (:func:`count_notes`). The one
    rule under :func:`tasks.convert.bounds.check_openings` and the command line's checks before
    Prefect starts (:mod:`commandline.sheet_checks`); about a second for 2 MB of any text."""
    fences = count_fences(text)
    if fences > MAX_FENCES:
        return (f"holds {fences:,} lines of backticks or tildes that may fence code, more than the {MAX_FENCES:,} "
                "a sheet is read with (a sheet has tens): split it")
    bare = outside_code(text)
    n, kind = _openings(bare)
    if n > max_questions:
        return f"holds {n:,} {kind}, more than the {max_questions:,} questions a set can have"
    n, kind = _openings(text)
    if n > CODE_FACTOR * max_questions:  # a fence pandoc does not read as one must not hide them (attack19)
        return (f"holds {n:,} {kind} counting its code blocks too, more than the {CODE_FACTOR * max_questions:,} "
                "a sheet is read with (a sheet has at most a hundred): split it")
    maths = len(_MATHS.findall(bare))
    if maths > MAX_MATHS:  # each route B reading of 60,000 took pandoc 10-16 s and 600 MB (attack13 C26)
        return (f"holds {maths:,} maths spans, more than the {MAX_MATHS:,} a sheet is read with (a sheet has "
                "hundreds; each reading of so many takes pandoc minutes): split it")
    notes = len(_NOTE_DEFINITION.findall(bare))
    if notes > MAX_NOTES:  # 40,000 ran into route B's time limit after 330 s (attack17 C07)
        return (f"holds {notes:,} footnote and link definitions, more than the {MAX_NOTES:,} a sheet is read "
                "with (a sheet has a few): split it")
    slow = _slow(bare)
    if slow:  # pandoc backtracks over each: minutes per reading (attack18 C07)
        return (f"holds {slow[0]:,} {slow[2]}, more than the {slow[1]:,} a sheet is read with (a sheet has at most "
                "a few hundred; pandoc takes minutes over so many): split it")
    return None
