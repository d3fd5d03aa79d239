"""The verbatim check: every field, whole, must be a quote of the markdown read.

Copy, never write. A field passes when each of its paragraphs (blank-line separated),
whitespace folded (:func:`tasks.settle.fold.fold_whitespace`), occurs in the markdown the
route read (the questions document or the solutions document, folded the same way) as a
*whole* quote (:func:`quoted`):

- it starts and ends at word boundaries: not inside a word (``1`` of ``12``; a combining
  mark belongs to its letter: ``cafe`` is not a quote of ``café`` written with U+0301), nor
  inside a number (``1`` of ``1.5``), nor after a number's sign (``5 m/s`` of ``-5 m/s``);
- it starts and ends outside the sheet's maths spans, so every maths span in the field
  equals a whole maths span of the sheet (``$a = 12/8 = 1$`` is not a quote of
  ``$a = 12/8 = 1.5\\,\\mathrm{m/s^2}$``, nor is ``12/8 = 1`` a quote of it).

A title passes when it is such a quote too, or the platform's default ``Question N``
(:data:`DEFAULT_TITLE`).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache

from schemas.sheet import SheetSet, iter_fields
from tasks.settle.fold import fold_whitespace

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")

DEFAULT_TITLE = re.compile(r"Question \d+")
"""The title the platform gives a question that has none (Lambda Feedback's default)."""


def paragraphs(text: str) -> list[str]:
    """The non-empty paragraphs of a field, split at blank lines, but never inside display
    maths: a ``$$ … $$`` span holding a blank line (as a notebook's markdown may) is one
    paragraph, a whole span to quote (split there, neither half is a whole maths span)."""
    out: list[str] = []
    open_display = False
    for piece in _PARAGRAPH_BREAK.split(text or ""):
        if open_display and out:
            out[-1] += "\n\n" + piece
        else:
            out.append(piece)
        open_display = out[-1].count("$$") % 2 == 1
    return [p.strip() for p in out if p.strip()]


_SPANS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}
"""Maths spans of sources folded by :func:`fold_source`, found before folding (folded → spans)."""


def fold_source(source: str) -> str:
    """``source`` (a markdown text a route read) folded as :func:`fold_whitespace` folds it,
    its maths spans found in the text as written: folding joins the lines, so a code block's
    ``$`` (R's ``df$col``, a shell's ``$HOME``) would read as maths in the folded text and
    fail every quote of that code (:func:`tasks.write.katex.find_maths` knows code blocks by
    their lines)."""
    from tasks.settle.fold import fold_whitespace_mapped
    from tasks.write.katex import find_maths

    folded, where = fold_whitespace_mapped(source)
    spans = sorted((where[s.start], where[s.end]) for s in find_maths(source))
    if len(_SPANS) >= 64:
        _SPANS.clear()
    _SPANS[folded] = (tuple(a for a, _ in spans), tuple(b for _, b in spans))
    return folded


def _maths(folded_source: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(starts, ends) of the maths spans of a folded source, sorted by start (those found
    before folding when :func:`fold_source` folded it)."""
    return _SPANS.get(folded_source) or _maths_of_folded(folded_source)


@lru_cache(maxsize=64)
def _maths_of_folded(folded_source: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    from tasks.write.katex import find_maths

    spans = sorted((s.start, s.end) for s in find_maths(folded_source))
    return tuple(s for s, _ in spans), tuple(e for _, e in spans)


def _inside_maths(pos: int, starts: tuple[int, ...], ends: tuple[int, ...]) -> bool:
    k = bisect.bisect_left(starts, pos) - 1  # the last span starting before pos
    return k >= 0 and pos < ends[k]


def _word(c: str) -> bool:
    """A character of a word: a letter, digit or ``_``, or a combining mark (``é`` written
    ``e`` + U+0301 is one letter: a quote never ends between them)."""
    return c.isalnum() or c == "_" or unicodedata.category(c).startswith("M")


SIGNS = "-+\u2212\u00b1\u2213"
"""Signs of a number (hyphen-minus, plus, minus U+2212, plus-minus, minus-plus)."""


def _boundaries_ok(src: str, i: int, j: int, needle: str) -> bool:
    if i > 0 and _word(needle[0]) and _word(src[i - 1]):
        return False
    if j < len(src) and _word(src[j]) and (_word(needle[-1]) or unicodedata.category(src[j]).startswith("M")):
        return False  # inside a word, or before a mark that belongs to the quote's last letter
    if i > 1 and needle[0].isdigit() and src[i - 1] in ".," and src[i - 2].isdigit():
        return False  # "5" of "1.5"
    if i > 0 and needle[0].isdigit() and src[i - 1] in SIGNS and (i == 1 or not _word(src[i - 2])):
        return False  # "5 m/s" of "-5 m/s": the number's sign dropped ("3-5" is a range: kept)
    if j + 1 < len(src) and needle[-1].isdigit() and src[j] in ".," and src[j + 1].isdigit():
        return False  # "1" of "1.5"
    if j < len(src) and needle[-1] in SIGNS and src[j].isdigit():
        return False  # "is -" of "is -5"
    return True


def quoted(needle: str, folded_source: str) -> bool:
    """True when the folded ``needle`` occurs in ``folded_source`` as a whole quote: at
    word boundaries, and starting and ending outside the source's maths spans."""
    if not needle:
        return True
    starts, ends = _maths(folded_source)
    at = folded_source.find(needle)
    while at >= 0:
        end = at + len(needle)
        if (_boundaries_ok(folded_source, at, end, needle) and not _inside_maths(at, starts, ends)
                and not _inside_maths(end, starts, ends)):
            return True
        at = folded_source.find(needle, at + 1)
    return False


def missing_paragraphs(text: str, folded_sources: list[str]) -> list[str]:
    """The paragraphs of ``text`` that are a whole quote (:func:`quoted`) of none of
    ``folded_sources``.

    ``folded_sources`` are markdown texts already passed through
    :func:`tasks.settle.fold.fold_whitespace` (fold once, check many fields).
    """
    missing = []
    for para in paragraphs(text):
        needle = fold_whitespace(para)
        if not any(quoted(needle, src) for src in folded_sources):
            missing.append(para)
    return missing


def title_ok(title: str, folded_sources: list[str]) -> bool:
    """A title is a whole quote of the sheet or the default ``Question N``."""
    return bool(DEFAULT_TITLE.fullmatch(fold_whitespace(title))) or not missing_paragraphs(title, folded_sources)


def not_verbatim(reading: SheetSet, sources: list[str]) -> dict[str, list[str]]:
    """Fields of ``reading`` that fail the check: ``{field key: [missing paragraphs]}``.

    ``sources`` are the markdown texts the route read (questions, and solutions if any).
    A title fails when it is neither a quote nor ``Question N``. An empty dict means every
    field is verbatim.
    """
    folded = [fold_source(s) for s in sources if s]
    failures: dict[str, list[str]] = {}
    for key, text in iter_fields(reading):
        if not text.strip():
            continue
        if key.endswith(".title"):
            if not title_ok(text, folded):
                failures[key] = [text]
            continue
        missing = missing_paragraphs(text, folded)
        if missing:
            failures[key] = missing
    return failures
