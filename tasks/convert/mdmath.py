r"""Markdown maths delimiters the platform renders: ``\(…\)`` → ``$…$`` and ``\[…\]`` →
``$$…$$`` (Mathpix and other converters write them; commonmark reads them as escaped
brackets, so the maths would show as text). Code (fenced blocks, inline code spans) is
left alone. ``\[…\]`` counts as maths only when it holds maths (a command, ``^``, ``_``,
``=``, ``+``, ``<``, ``>``, braces or a single letter): ``\[2 marks\]`` is an escaped
bracket around words, which commonmark shows as ``[2 marks]``, and stays as it is.

:func:`text_dollars` escapes a ``$`` used as currency (``costs $12 and $150``): one the
reader takes for text (it opens no maths span by ``commonmark_x``'s rules, found as
:func:`tasks.write.katex.find_maths` finds them) and that a digit follows is written
``\$``, so that no renderer with looser rules (the platform's) reads the words between two
prices as maths. Pandoc already writes text dollars so when it writes the markdown (LaTeX,
Word).

:func:`bare_environments` writes a display-maths environment of amsmath standing alone
outside any delimiters (``\begin{gather*}`` … ``\end{gather*}`` after a blank line, as MyST
notebooks and Jupyter markdown cells write them) inside ``$$`` lines: MathJax and MyST's
``amsmath`` extension show it as display maths, while commonmark reads it as text.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
_INLINE = re.compile(r"\\\((.+?)\\\)", re.S)
_DISPLAY = re.compile(r"\\\[(.+?)\\\]", re.S)
_MATHS = re.compile(r"[\\^_=+<>{}]|^\s*[A-Za-z]\s*$")


def _inline(m: re.Match) -> str:
    body = m.group(1).strip()
    return f"${body}$" if body else m.group(0)


def _display(m: re.Match) -> str:
    body = m.group(1)
    if not _MATHS.search(body):
        return m.group(0)
    if "\n" in body:
        return "$$" + body.rstrip(" \t") + "$$" if body.endswith("\n") else "$$" + body + "$$"
    return f"$${body.strip()}$$"


def _prose(text: str) -> str:
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_DISPLAY.sub(_display, _INLINE.sub(_inline, text[last:m.start()])))
        out.append(m.group(0))
        last = m.end()
    out.append(_DISPLAY.sub(_display, _INLINE.sub(_inline, text[last:])))
    return "".join(out)


def outside_fences(markdown: str, rewrite) -> str:
    """``markdown`` with ``rewrite(text) -> text`` applied to each run of lines outside fenced
    code (a fence closes on a fence of its character at least as long); fences as they are."""
    chunks, prose, fence = [], [], None
    for line in markdown.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            if prose:
                chunks.append(rewrite("\n".join(prose)))
            prose, fence = [], m.group(1)
            chunks.append(line)
        elif fence is not None:
            chunks.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
        else:
            prose.append(line)
    if prose:
        chunks.append(rewrite("\n".join(prose)))
    return "\n".join(chunks)


def dollar_maths(markdown: str) -> str:
    """``markdown`` with ``\\(…\\)``/``\\[…\\]`` maths written ``$…$``/``$$…$$``; the rest
    unchanged (a text without them is returned as it is)."""
    if "\\(" not in markdown and "\\[" not in markdown:
        return markdown
    return outside_fences(markdown, _prose)


_PRICE = re.compile(r"(?<!\\)\$(?=[0-9])")


def _escape_prices(prose: str) -> str:
    from tasks.write.katex import find_maths

    spans = find_maths(prose)
    out, last = [], 0
    for m in _PRICE.finditer(prose):
        if any(s.start <= m.start() < s.end for s in spans):
            continue
        out.append(prose[last:m.start()] + "\\$")
        last = m.end()
    out.append(prose[last:])
    return "".join(out)


def text_dollars(markdown: str) -> str:
    """``markdown`` with each ``$`` that is text and followed by a digit (a price) written
    ``\\$``; maths spans, code spans and fenced code are left as they are."""
    if "$" not in markdown:
        return markdown
    return outside_fences(markdown, _outside_code)


def _outside_code(text: str) -> str:
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape_prices(text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_escape_prices(text[last:]))
    return "".join(out)


DISPLAY_ENVS = ("equation", "align", "gather", "alignat")
"""amsmath's display environments (each also starred) shown as maths when written alone, those
KaTeX renders (its ``multline``, ``flalign``, ``eqnarray`` it does not: left as they are)."""
_BEGIN = re.compile(r"^(?P<lead>[ \t]*)\\begin\{(?P<env>(?:" + "|".join(DISPLAY_ENVS) + r")\*?)\}")


def _environments(prose: str) -> str:
    lines = prose.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _BEGIN.match(lines[i])
        if m and (i == 0 or not lines[i - 1].strip()):
            end = "\\end{" + m.group("env") + "}"
            j = i
            while j < len(lines) and lines[j].strip() and end not in lines[j]:
                j += 1
            if j < len(lines) and end in lines[j] and lines[j].rstrip().endswith(end):
                lead = m.group("lead")
                out += [lead + "$$", *lines[i:j + 1], lead + "$$"]
                i = j + 1
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def bare_environments(markdown: str) -> str:
    """``markdown`` with each amsmath display environment that opens a paragraph and closes at
    the end of a line of the same paragraph (no blank line between: TeX allows none) put
    between ``$$`` lines at its indentation (module docstring); code fences left alone, the
    rest unchanged."""
    if "\\begin{" not in markdown:
        return markdown
    return outside_fences(markdown, _environments)
