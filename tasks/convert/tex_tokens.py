r"""TeX's tokens, for the conditional expander (:mod:`tasks.convert.tex_cond`).

:func:`tokenize` reads text as TeX's eyes and mouth do with LaTeX's category codes
(The TeXbook, chapters 7 and 8): ``\name`` (letters, and ``@`` after ``\makeatletter`` or
in a class file) or ``\x`` (one other character) is a control sequence, and the spaces
after a control word are skipped; ``%`` starts a comment to the end of the line (so a
commented-out switch line is no switch); a run of spaces and one line end is one space
token, a blank line is ``\par``; ``{`` ``}`` ``$`` ``&`` ``#`` ``^`` ``_`` keep their
categories. Each token keeps its span in the source (``start``, ``end``), so that what the
expander drops or keeps maps back to the text. The bodies of ``verbatim``-like
environments and ``\verb`` are one ``raw`` token each (TeX does not read them as tokens).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN, END, MATH, ALIGN, PARAM, SUP, SUB, SPACE, LETTER, OTHER, ACTIVE = 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13
CS, RAW = 0, 99
"""Categories: TeX's numbers; ``CS`` a control sequence, ``RAW`` a verbatim span."""

_CATS = {"{": BEGIN, "}": END, "$": MATH, "&": ALIGN, "#": PARAM, "^": SUP, "_": SUB, "~": ACTIVE}
_VERBATIM = re.compile(r"\\begin\{(verbatim\*?|lstlisting|minted|Verbatim|comment|filecontents\*?)\}.*?\\end\{\1\}"
                       r"|\\(?:verb|lstinline)\*?([^A-Za-z\s{\[])(?:(?!\2).)*\2", re.S)


@dataclass(frozen=True)
class Tok:
    """One token: ``cat`` (a category above), ``text`` (the control sequence's name without
    the backslash, or the character), ``start``/``end`` (its span in the source; -1 for a
    token an expansion made) and ``index`` (its place in the source's token list, or -1)."""

    cat: int
    text: str
    start: int = -1
    end: int = -1
    index: int = -1

    def is_cs(self, name: str | None = None) -> bool:
        return self.cat == CS and (name is None or self.text == name)

    def key(self) -> tuple[int, str]:
        """What TeX compares (``\\ifx`` of two macros compares their bodies this way)."""
        return (self.cat, self.text)

    def copy(self) -> "Tok":
        """The same token made by an expansion (no source span)."""
        return Tok(self.cat, self.text)


def tokenize(text: str, at_letter: bool = False) -> list[Tok]:
    """``text`` as TeX tokens (see the module docstring); never raises."""
    out: list[Tok] = []
    raw = {m.start(): m.end() for m in _VERBATIM.finditer(text)}
    i, n, line_start = 0, len(text), True
    while i < n:
        if i in raw:
            out.append(Tok(RAW, text[i:raw[i]], i, raw[i]))
            i = raw[i]
            line_start = False
            continue
        c = text[i]
        if c == "\\" and i + 1 < n:
            j = i + 1
            if text[j].isalpha() or (at_letter and text[j] == "@"):
                while j < n and (text[j].isalpha() or (at_letter and text[j] == "@")):
                    j += 1
                name = text[i + 1:j]
                while j < n and text[j] in " \t":
                    j += 1
                if j < n and text[j] == "\n":  # one line end after a control word is a space, skipped too
                    k = j + 1
                    while k < n and text[k] in " \t":
                        k += 1
                    if k >= n or text[k] != "\n":
                        j = k
                at_letter = True if name == "makeatletter" else False if name == "makeatother" else at_letter
            else:
                name, j = text[j], j + 1
            out.append(Tok(CS, name, i, j))
            i, line_start = j, False
            continue
        if c == "%":
            j = text.find("\n", i)
            j = n if j < 0 else j + 1
            while j < n and text[j] in " \t":  # TeX skips the next line's leading spaces
                j += 1
            i, line_start = j, True
            continue
        if c in " \t\n":
            j, breaks = i, 0
            while j < n and text[j] in " \t\n":
                breaks += text[j] == "\n"
                j += 1
            if breaks >= 2:
                out.append(Tok(CS, "par", i, j))
            elif not line_start and not (out and out[-1].cat == SPACE):
                out.append(Tok(SPACE, " ", i, j))
            i, line_start = j, breaks > 0
            continue
        cat = _CATS.get(c, LETTER if c.isalpha() else OTHER)
        out.append(Tok(cat, c, i, i + 1))
        i, line_start = i + 1, False
    return [Tok(t.cat, t.text, t.start, t.end, k) for k, t in enumerate(out)]


def render(tokens: list[Tok]) -> str:
    """Tokens an expansion made written back as TeX (a control word followed by a space
    when a letter comes next)."""
    out: list[str] = []
    for k, t in enumerate(tokens):
        if t.cat == CS:
            out.append("\\" + t.text)
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if t.text.isalpha() and nxt is not None and nxt.cat == LETTER:
                out.append(" ")
        elif t.cat == RAW:
            out.append(t.text)
        else:
            out.append(t.text)
    return "".join(out)


def groups(tokens: list[Tok]) -> dict[int, int]:
    """For each ``{`` token's position in ``tokens``, the position of its ``}``."""
    stack, out = [], {}
    for k, t in enumerate(tokens):
        if t.cat == BEGIN:
            stack.append(k)
        elif t.cat == END and stack:
            out[stack.pop()] = k
    return out
