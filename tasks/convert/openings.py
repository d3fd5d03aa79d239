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

_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[`~]*[ \t]*$", re.M | re.S)
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
    text = _FENCED.sub("", text)
    for _, rx, bound, what in SLOW_OPENERS:
        n = len(rx.findall(text))
        if n > bound:
            return n, bound, what
    return None


def count_openings(text: str) -> tuple[int, str]:
    """The most question openings of one kind in markdown ``text``, and that kind in words:
    lines (outside fenced code) opening with a question word and a number (``## Question 12``,
    ``**Exercise 3.**``, ``Q12.``: :data:`QUESTION_WORDS`), headings of one level, or numbered
    list items at the line's start (a list's items, not those nested in one), each what some
    reading opens a question at; a sheet has tens. Regular expressions over the whole text:
    about 0.15 s for 1 MB."""
    text = _FENCED.sub("", text)
    level, headings = (Counter(_HEADING.findall(text)).most_common(1) or [("#", 0)])[0]
    return max((len(_WORD.findall(text)), "question openings (a question word and a number)"),
               (headings, f"headings of level {len(level)}"),
               (len(_NUMBERED_ITEM.findall(text)), "numbered list items"))


def count_maths(text: str) -> int:
    """The maths spans of markdown ``text`` outside fenced code: ``$…$``, ``$$…$$``, and the
    openers ``\\(``, ``\\[`` and ``\\begin{equation}`` (and its kin); an estimate by regular
    expressions (about 0.1 s for 1 MB), compared with :data:`MAX_MATHS`."""
    return len(_MATHS.findall(_FENCED.sub("", text)))


def count_notes(text: str) -> int:
    """The footnote and link-reference definitions of markdown ``text`` outside fenced code:
    lines opening (after at most three spaces) with ``[label]:`` or ``[^label]:``; compared
    with :data:`MAX_NOTES`. A regular expression over the whole text (about 0.05 s for 1 MB)."""
    return len(_NOTE_DEFINITION.findall(_FENCED.sub("", text)))


def count_problem(text: str, max_questions: int) -> str | None:
    """What is wrong with markdown ``text``'s counts, in the words of its one line (after the
    file's name), or ``None``: more than ``max_questions`` openings of one kind
    (:func:`count_openings`), more than :data:`MAX_MATHS` maths spans (:func:`count_maths`) or
    more than :data:`MAX_NOTES` footnote and link definitions (:func:`count_notes`). The one
    rule under :func:`tasks.convert.bounds.check_openings` and the command line's checks before
    Prefect starts (:mod:`commandline.sheet_checks`)."""
    n, kind = count_openings(text)
    if n > max_questions:
        return f"holds {n:,} {kind}, more than the {max_questions:,} questions a set can have"
    maths = count_maths(text)
    if maths > MAX_MATHS:  # each route B reading of 60,000 took pandoc 10-16 s and 600 MB (attack13 C26)
        return (f"holds {maths:,} maths spans, more than the {MAX_MATHS:,} a sheet is read with (a sheet has "
                "hundreds; each reading of so many takes pandoc minutes): split it")
    notes = count_notes(text)
    if notes > MAX_NOTES:  # 40,000 ran into route B's time limit after 330 s (attack17 C07)
        return (f"holds {notes:,} footnote and link definitions, more than the {MAX_NOTES:,} a sheet is read "
                "with (a sheet has a few): split it")
    slow = count_slow(text)
    if slow:  # pandoc backtracks over each: minutes per reading (attack18 C07)
        return (f"holds {slow[0]:,} {slow[2]}, more than the {slow[1]:,} a sheet is read with (a sheet has at most "
                "a few hundred; pandoc takes minutes over so many): split it")
    return None
