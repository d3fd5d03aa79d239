"""Folding notation that renders the same, so that two texts can be compared fairly.

Tier 1 accepts a field when both routes' texts are equal after :func:`fold`; the export
comparison also uses :func:`fold_quotes`. The folds (issue 2, tier 1):

- ``\\left(`` / ``\\right)`` and the ``\\big`` family are dropped (KaTeX sizes the
  delimiter; the glyph is the same);
- ``~``, ``\\,``, ``\\;``, ``\\:``, ``\\ ``, ``\\space``, ``\\!`` and whitespace inside maths
  (TeX ignores spaces in maths, except to end a control word);
- ``\\mathrm{~m}`` and ``\\mathrm{m}`` (a consequence of the rule above);
- separator lines (``---``, ``***``, ``___``), spacer paragraphs holding only a space
  entity (``&#x20;``, ``&nbsp;``) and blank lines;
- image links compared by file name only (``![x](media/a.png){width=30%}`` → ``![](a.png)``);
- ``\\(…\\)`` and ``$…$`` alike, ``\\[…\\]`` and ``$$…$$`` alike;
- runs of whitespace outside maths become one space.
"""

from __future__ import annotations

import re

_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)(\{[^}]*\})?")
_SEPARATOR = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|&#x20;|&#32;|&nbsp;|&#160;)\s*$", re.M)
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_SPACING = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![A-Za-z])")
_SPACE_CMDS = re.compile(r"\\(?:space|quad|qquad)(?![A-Za-z])|\\[,;:! ]|~")
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-", "\u00a0": " "})


def _fold_math(tex: str) -> str:
    tex = _SPACING.sub("", tex)
    tex = _SPACE_CMDS.sub(" ", tex)
    # Empty groups such as ``\mathrm{}`` render nothing, nor does an empty sub/superscript;
    # a single character needs no braces (``_{0}`` is ``_0``).
    tex = re.sub(r"\\(?:mathrm|text|mathit|mathbf)\{\s*\}", "{}", tex)
    tex = re.sub(r"[_^]\s*\{\s*\}", "", tex)
    tex = re.sub(r"([_^])\s*\{\s*([A-Za-z0-9])\s*\}", r"\1\2", tex)
    # Keep a space only where it ends a control word before a letter (``\alpha x``).
    tex = re.sub(r"(\\[A-Za-z]+)\s+(?=[A-Za-z])", "\\1\x00", tex)
    tex = re.sub(r"\s+", "", tex)
    return tex.replace("\x00", " ").strip()


def fold(text: str | None) -> str:
    """The notation-folded form of a markdown field (a string; ``None`` folds to ``""``).

    Two fields whose folds are equal render alike on the platform. The fold is for
    comparison only: it is never written into a set.
    """
    if not text:
        return ""
    text = text.replace("\r\n", "\n")
    text = text.replace("\\(", "$").replace("\\)", "$").replace("\\[", "$$").replace("\\]", "$$")
    text = _IMAGE.sub(lambda m: "![](" + m.group(1).rsplit("/", 1)[-1] + ")", text)
    text = _SEPARATOR.sub("", text)

    def math(m: re.Match) -> str:
        if m.group(1) is not None:
            return "$$" + _fold_math(m.group(1)) + "$$"
        return "$" + _fold_math(m.group(2)) + "$"

    text = _MATH.sub(math, text)
    text = re.sub(r"\s+", " ", text).strip()
    # A space before closing punctuation or after an opening bracket renders the same width
    # in the platform's markdown only approximately; the texts are the same words.
    text = re.sub(r"\s+([,.;:)?!])", r"\1", text)
    text = re.sub(r"([(])\s+", r"\1", text)
    return text


def fold_quotes(text: str | None) -> str:
    """:func:`fold` plus curly quotes and dashes as their straight ASCII forms (export comparison)."""
    return fold((text or "").translate(_CURLY))


_HARD_BREAK = re.compile(r"(?<!\\)\\(?=[ \t]*(?:\n|\Z))")


def fold_whitespace(text: str | None) -> str:
    """Runs of whitespace as one space, ends stripped: the verbatim check's only fold. A
    markdown hard line break (a lone backslash ending a line; not maths' ``\\\\``) is
    whitespace too: a reader that joins the lines copies the same words; so is one ending
    the text (a field or paragraph that ends where the sheet's line broke: ``$\\:$\\``)."""
    return re.sub(r"\s+", " ", _HARD_BREAK.sub(" ", text or "")).strip()


_FOLDED_RUN = re.compile(r"(?:(?<!\\)\\(?=[ \t]*(?:\n|\Z))|\s)+")


def fold_whitespace_mapped(text: str) -> tuple[str, list[int]]:
    """:func:`fold_whitespace` of ``text`` and, for each offset ``0 … len(text)`` of ``text``,
    the offset of the folded text it lands on (a folded run of whitespace maps to its one
    space; offsets in the stripped ends to 0 or the end)."""
    out: list[str] = []
    where = [0] * (len(text) + 1)
    pos = prev = 0
    for m in _FOLDED_RUN.finditer(text):
        for k in range(prev, m.start()):
            where[k] = pos + k - prev
        pos += m.start() - prev
        out.append(text[prev:m.start()])
        for k in range(m.start(), m.end()):
            where[k] = pos
        out.append(" ")
        pos += 1
        prev = m.end()
    for k in range(prev, len(text) + 1):
        where[k] = pos + k - prev
    out.append(text[prev:])
    folded = "".join(out)
    lead = len(folded) - len(folded.lstrip(" "))
    stripped = folded.strip(" ")
    return stripped, [min(max(w - lead, 0), len(stripped)) for w in where]
