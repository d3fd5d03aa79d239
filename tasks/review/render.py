"""A field as the platform shows it, for the review page: markdown and maths rendered to HTML.

:func:`render_field` turns a field's markdown into safe HTML: the maths spans the routes
read (:func:`tasks.write.katex.find_maths`, the rules of pandoc's ``commonmark_x``) become
KaTeX's MathML (:func:`tasks.write.katex.katex_mathml`: no fonts or stylesheet needed), the
rest is CommonMark rendered by markdown-it-py with raw HTML off (a sheet's ``<script>`` is
shown as text, never run) and its link check on (no ``javascript:`` links). A span KaTeX
cannot render is shown as its TeX in red, as the platform shows it. Image links the run
kept (``settled.json``'s ``images``) point at the page's own ``image/N`` URLs.

:func:`diff_marks` says which words and maths spans of route A's and route B's texts differ
(difflib over tokens: a maths span is one token, a word another), as character ranges that
:func:`render_field` wraps in ``<mark>``.
"""

from __future__ import annotations

import difflib
import html
import re
from functools import lru_cache

from tasks.settle.fold import fold_whitespace
from tasks.write.katex import find_maths, katex_error, katex_mathml

_MATH_OPEN, _MATH_CLOSE, _MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
"""Private-use characters standing for a maths span and a mark while markdown-it renders."""

_PLACED = re.compile(f"{_MATH_OPEN}(\\d+){_MATH_CLOSE}")
_BLOCK_MARKER = re.compile(r"#{1,6}|>|[-*+]|\d{1,9}[.)]|\(?[A-Za-z0-9]{1,4}[.)]|\|")
_SRC = re.compile(r'(<img src=")([^"]*)(")')


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"])


def _maths_html(tex: str, display: bool) -> str:
    mathml = katex_mathml(tex, display)
    if mathml is not None:
        return mathml
    message = katex_error(tex, display) or "KaTeX cannot render this"
    opener, closer = ("$$", "$$") if display else ("$", "$")
    return (f'<code class="katex-error" title="{html.escape(message)}">'
            f"{html.escape(opener + tex + closer)}</code>")


def render_field(text: str | None, images: dict[str, str] | None = None,
                 marks: list[tuple[int, int]] | None = None) -> str:
    """``text`` (markdown with ``$…$`` / ``$$…$$`` maths) as HTML the page can show as is.

    ``images``: an image link as written → the URL the page serves it at (other links are
    left as written; the page's Content-Security-Policy keeps them from loading anything
    from elsewhere). ``marks``: character ranges ``[start, end)`` of ``text`` to wrap in
    ``<mark>`` (from :func:`diff_marks`; a range must not cut a maths span). ``None`` or
    empty text gives an empty string. Never raises for any text."""
    if not text:
        return ""
    spans = find_maths(text)
    events: list[tuple[int, int, str]] = []  # (position, order, what): closes before opens at one place
    for start, end in marks or []:
        events += [(start, 1, _MARK_OPEN), (end, 0, _MARK_CLOSE)]
    out, maths, at = [], [], 0
    pending = sorted(events)
    for n, span in enumerate(spans):
        while pending and pending[0][0] <= span.start:
            pos, _, what = pending.pop(0)
            out += [text[at:pos], what]
            at = pos
        out += [text[at:span.start], f"{_MATH_OPEN}{n}{_MATH_CLOSE}"]
        maths.append(_maths_html(span.tex, span.display))
        at = span.end
        pending = [(max(p, at), o, w) for p, o, w in pending]
    for pos, _, what in pending:
        out += [text[at:pos], what]
        at = pos
    out.append(text[at:])
    body = _markdown().render("".join(out))
    body = _PLACED.sub(lambda m: maths[int(m.group(1))], body)
    body = body.replace(_MARK_OPEN, "<mark>").replace(_MARK_CLOSE, "</mark>")
    if images:
        body = _SRC.sub(lambda m: m.group(1) + html.escape(images.get(html.unescape(m.group(2)), m.group(2))) + m.group(3),
                        body)
    return body


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, key)`` of each maths span and each run of non-space characters outside
    maths, in order; ``key`` is what is compared (a span's TeX with whitespace folded)."""
    found: list[tuple[int, int, str]] = []
    at = 0
    for span in find_maths(text) + [None]:
        stop = span.start if span is not None else len(text)
        for m in re.finditer(r"\S+", text[at:stop]):
            found.append((at + m.start(), at + m.end(), m.group(0)))
        if span is not None:
            found.append((span.start, span.end, span.delim + fold_whitespace(span.tex)))
            at = span.end
    return found


def _ranges(text: str, tokens: list[tuple[int, int, str]], i: int, j: int) -> list[tuple[int, int]]:
    """Tokens ``i..j`` of ``text`` as mark ranges: one per line they run over, without a
    block marker opening a line (``1.``, ``#``, ``-``: a mark there would undo the list)."""
    out: list[tuple[int, int]] = []
    for start, end, key in tokens[i:j]:
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip() and _BLOCK_MARKER.fullmatch(key):
            continue
        if out and "\n" not in text[out[-1][1]:start]:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def diff_marks(a: str | None, b: str | None) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The ranges of ``a`` and of ``b`` that differ from the other text: words and whole
    maths spans replaced, dropped or added (difflib's opcodes over :func:`_tokens`). Either
    text ``None`` (a route with no reading) marks nothing. Returns ``(marks_a, marks_b)``
    for :func:`render_field`."""
    if a is None or b is None:
        return [], []
    ta, tb = _tokens(a), _tokens(b)
    matcher = difflib.SequenceMatcher(None, [k for *_, k in ta], [k for *_, k in tb], autojunk=False)
    marks_a: list[tuple[int, int]] = []
    marks_b: list[tuple[int, int]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            marks_a += _ranges(a, ta, i1, i2)
            marks_b += _ranges(b, tb, j1, j2)
    return marks_a, marks_b
