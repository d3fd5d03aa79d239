"""Mathpix's maths delimiters as the routes read them: ``\\(…\\)`` and ``\\[…\\]`` become
``$…$`` and ``$$…$$`` outside code fences (:func:`dollar_maths`)."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
_INLINE = re.compile(r"(?<!\\)((?:\\\\)*)\\\((.+?)(?<!\\)((?:\\\\)*)\\\)", re.S)
_DISPLAY = re.compile(r"^([ \t]*(?:[-*+][ \t]+)?)\\\[(.+?)\\\]([ \t]*)$", re.S | re.M)


def dollar_maths(markdown: str) -> str:
    r"""``markdown`` with ``\(…\)`` written ``$…$`` and ``\[…\]`` written ``$$…$$``.

    Display maths is taken only where Mathpix writes it: ``\[`` opening a line (after an
    indent or a list marker) and ``\]`` closing one, so an escaped bracket in the text
    (``see \[1\]``) stays text. The maths itself is kept character for character; only
    the inline span's spaces just inside the delimiters go (``\( x \)`` → ``$x$``: commonmark reads ``$ x $`` as text, not
    maths). A delimiter escaped by a backslash (``\\(`` is a line break and a parenthesis)
    is not one; fenced code blocks are left as they are; an opening delimiter with no
    closing one is left as it is.
    """
    out, last = [], 0
    for m in _FENCE.finditer(markdown):
        out.append(_dollar_text(markdown[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_dollar_text(markdown[last:]))
    return "".join(out)


def _dollar_text(text: str) -> str:
    text = _DISPLAY.sub(lambda m: f"{m.group(1)}$${m.group(2)}$${m.group(3)}", text)

    def inline(m: re.Match) -> str:
        body = (m.group(2) + m.group(3)).strip()
        if not body or "\n\n" in body:
            return m.group(0)
        return f"{m.group(1)}${body}$"

    return _INLINE.sub(inline, text)
