"""Where a flagged field came from: the lines of the converted sheet (``source.md``,
``solutions.md``) its text was read from, for the review page to highlight.

Every settled field is a quote of the sheet (copy, never write), so its paragraphs are
found in the markdown with whitespace folded as the verbatim check folds it
(:func:`tasks.settle.fold.fold_whitespace`). A text that is not a quote (route B's reading
of a ``not_verbatim`` field) is placed by its longest stretch in common with the sheet
(difflib). A flag on lines in no field names them (``source:12``, ``solutions:4-9``); a
flag on a question or a part (``q2``, ``q2.p1``) is placed by the question's fields.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass

from tasks.settle.fold import fold_whitespace
from tasks.settle.verbatim import paragraphs

_LINES = re.compile(r"(source|solutions):(\d+)(?:-(\d+))?")
_PLACE = re.compile(r"q([1-9]\d*)(?:\.p([1-9]\d*))?")
MIN_COMMON = 24
"""A text that is not found whole is placed only by a stretch of at least this many
characters in common with the sheet (or half the text, when shorter)."""


@dataclass(frozen=True)
class Document:
    """One converted document of the run: ``name`` (``source.md``), ``text``; ``folded``
    the text with whitespace folded and ``at[i]`` the offset in ``text`` of ``folded[i]``."""

    name: str
    text: str
    folded: str
    at: tuple[int, ...]
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, name: str, text: str) -> "Document":
        """The document ``name`` holding ``text``, with its fold and line index made."""
        folded, at, space = [], [], False
        for i, c in enumerate(text):
            if c.isspace():
                space = bool(folded)
                continue
            if space:
                folded.append(" ")
                at.append(i - 1)
                space = False
            folded.append(c)
            at.append(i)
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        return cls(name, text, "".join(folded), tuple(at), tuple(starts))

    def line(self, offset: int) -> int:
        """The 1-based line of character ``offset`` of ``text``."""
        return bisect.bisect_right(self.line_starts, offset)

    def lines_of(self, start: int, length: int) -> tuple[int, int]:
        """The first and last line (1-based) of ``folded[start:start+length]``."""
        return self.line(self.at[start]), self.line(self.at[start + length - 1])


@dataclass(frozen=True)
class Place:
    """Where a text sits: ``document`` the index of the document in the run's list,
    ``lines`` the ``(first, last)`` line ranges (1-based, inclusive) in it, ``whole``
    true when every paragraph was found as written."""

    document: int
    lines: tuple[tuple[int, int], ...]
    whole: bool


def _find(doc: Document, needle: str, after: int = 0) -> tuple[int, int] | None:
    """``(start, length)`` in ``doc.folded`` of ``needle`` (folded), whole (its first
    occurrence from ``after``, else from the start) or by its longest stretch in common
    (at least :data:`MIN_COMMON` characters, or half of it)."""
    at = doc.folded.find(needle, after)
    if at < 0:
        at = doc.folded.find(needle)
    if at >= 0:
        return at, len(needle)
    m = difflib.SequenceMatcher(None, doc.folded, needle, autojunk=False).find_longest_match(
        0, len(doc.folded), 0, len(needle))
    if m.size >= min(MIN_COMMON, max(1, len(needle) // 2)):
        return m.a, m.size
    return None


def place_text(docs: list[Document], text: str | None, prefer: int = 0) -> Place | None:
    """The lines of the document that holds most of ``text``'s paragraphs (``prefer``: the
    document tried first, and kept on a tie), or ``None`` when no paragraph is found."""
    paras = [fold_whitespace(p) for p in paragraphs(text or "")]
    if not paras:
        return None
    best: Place | None = None
    best_chars = 0
    order = [prefer] + [i for i in range(len(docs)) if i != prefer]
    for i in order:
        doc, lines, chars, whole, after = docs[i], [], 0, True, 0
        for p in paras:  # a field's paragraphs follow each other in the sheet: each looked for after the last
            hit = _find(doc, p, after)
            if hit is None:
                whole = False
                continue
            whole = whole and hit[1] == len(p)
            lines.append(doc.lines_of(*hit))
            chars += hit[1]
            after = hit[0] + hit[1]
        if chars > best_chars:
            best, best_chars = Place(i, _merged(lines, doc), whole), chars
    return best


def _merged(lines: list[tuple[int, int]], doc: Document) -> tuple[tuple[int, int], ...]:
    """Line ranges sorted, and joined where only blank lines lie between them."""
    rows = doc.text.splitlines()
    out: list[tuple[int, int]] = []
    for a, b in sorted(lines):
        if out and all(not rows[k - 1].strip() for k in range(out[-1][1] + 1, a) if k <= len(rows)):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def place_flag(docs: list[Document], field: str, texts: list[str | None], question_texts: list[str]) -> Place | None:
    """Where the flag on ``field`` came from in ``docs`` (``source.md`` first, then
    ``solutions.md`` when the run has one).

    ``source:LINE`` / ``solutions:FIRST-LAST`` name their lines; otherwise the first of
    ``texts`` (the field's text now, route A's, route B's) that is found places it, a
    worked solution or an answer looked for in the solutions first; failing that, the
    question's ``question_texts`` (its title, main text, parts). ``None`` when nothing is
    found."""
    m = _LINES.fullmatch(field)
    if m:
        which = 1 if m[1] == "solutions" and len(docs) > 1 else 0
        first = int(m[2])
        return Place(which, ((first, int(m[3] or first)),), True)
    prefer = 1 if len(docs) > 1 and field.endswith((".worked_solution", ".answer")) else 0
    for text in texts:
        place = place_text(docs, text, prefer)
        if place is not None:
            return place
    if _PLACE.match(field):
        for text in question_texts:
            place = place_text(docs, text)
            if place is not None:
                return Place(place.document, place.lines, False)
    return None
