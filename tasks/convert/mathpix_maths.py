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


_MATHPIX_TRAITS = re.compile(r"\\mathrm\{~|cdn\.mathpix\.com|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+")


def mathpix_style(markdown: str) -> bool:
    """True when ``markdown`` looks converted by Mathpix (from a PDF).

    Both must hold: display maths fenced by ``$$`` on lines of their own (pandoc writes
    ``$$…$$`` inside the paragraph instead), and a Mathpix trait: ``\\mathrm{~`` (units
    spaced with a tie), a ``cdn.mathpix.com`` image, or Mathpix's image names
    (``<uuid>-<page>``). Used by the flow to decide the ``stray_minus`` check.
    """
    own_line = re.search(r"^[ \t]*(?:[-*+][ \t]+)?\$\$[ \t]*$", markdown, re.M)
    return bool(own_line and _MATHPIX_TRAITS.search(markdown))
