"""The KaTeX check: does every maths span of a field render on the platform?

Lambda Feedback renders maths with KaTeX; a span KaTeX cannot parse shows as red
source on the platform. :func:`check_maths` renders every span with pykatex (KaTeX
0.16.22 run in QuickJS) and reports the ones that fail. It never changes a text
(in2lambda's own ``katex_convert`` rewriter changes meaning and is never used).

pykatex is alpha; its quirks are wrapped here and only here:

- the display option is KaTeX's ``displayMode`` (pykatex's README says ``displayMath``,
  which it rejects with ``TypeError``); booleans must be ``bool``, not ``int``;
- a KaTeX parse error is raised as ``pykatex.ParseError`` even with the default
  ``throwOnError``; a JavaScript stack overflow (very deep nesting) also arrives as
  ``ParseError("size exceeded")``;
- with KaTeX's default ``strict="warn"`` it prints LaTeX-compatibility warnings on
  stdout; we pass ``strict="ignore"`` (the platform renders those spans all the same);
- a string with a NUL or a lone surrogate raises ``ValueError`` / ``UnicodeEncodeError``
  before KaTeX sees it; both are reported as warnings, never raised;
- rendering time grows quadratically with the length of the TeX (20,000 characters
  take seconds), so longer spans are reported as not checked;
- one QuickJS context is shared and it checks its stack against the thread that first
  used it: called from another thread (Prefect runs tasks in worker threads) it fails
  with "size exceeded" or worse. Every call therefore runs on one dedicated thread
  (which also serialises them), and results are cached per TeX string.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from schemas.build import KatexWarning
from schemas.flags import Flag

MAX_TEX_CHARS = 5_000
"""Spans longer than this are not rendered (reported as a warning instead): rendering
time grows with the square of the length (20,000 characters took ~16 s, 5,000 ~1 s)."""

SPAN_SECONDS = 3.0
"""Per-span budget: a span KaTeX has not rendered in this time is reported as not checked."""

RUN_SECONDS = 20.0
"""Per-run budget (one set's check): past it the remaining spans are reported as not
checked, in one warning, instead of stalling the run."""


class KatexBudget:
    """The time one run's KaTeX check may take (:data:`RUN_SECONDS` in all,
    :data:`SPAN_SECONDS` per span). ``spent_out`` counts the spans left unchecked."""

    def __init__(self, run_seconds: float = RUN_SECONDS, span_seconds: float = SPAN_SECONDS):
        import time

        self.deadline = time.monotonic() + run_seconds
        self.run_seconds = run_seconds
        self.span_seconds = span_seconds
        self.spent_out = 0

    def left(self) -> float:
        import time

        return self.deadline - time.monotonic()

_KATEX_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="katex")
"""The one thread every pykatex call runs on (see the module docstring)."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HTML_RAW = re.compile(r" {0,3}<(script|pre|style|textarea)(?=[\s>]|$)", re.I)
_HTML_BLOCK = re.compile(
    r" {0,3}</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd"
    r"|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset"
    r"|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol"
    r"|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr"
    r"|track|ul)(?=[ \t>]|/>|\n|$)",
    re.I,
)


@dataclass(frozen=True)
class MathSpan:
    """One maths span of a markdown text.

    ``start``/``end`` are character offsets of the whole span in the text, delimiters
    included (``text[start:end]``); ``tex`` is what lies between the delimiters;
    ``delim`` is ``$`` or ``$$``; ``display`` is true for ``$$``.
    """

    start: int
    end: int
    tex: str
    delim: Literal["$", "$$"]

    @property
    def display(self) -> bool:
        return self.delim == "$$"


_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|#\.|\d{1,9}[.)]|\(?[A-Za-z]{1,4}[.)])(?:[ \t]|$)")


def _indented_code_end(text: str, i: int) -> int:
    """End of the indented code block whose first line starts at ``i`` (CommonMark spec 4.4:
    lines indented four spaces or a tab, blank lines inside): the start of the first later
    line that is not blank and indented less."""
    for m in re.finditer(r"\n([^\n]*)", text[i:]):
        line = m.group(1)
        if line.strip() and not line.startswith(("    ", "\t")) and len(line) - len(line.lstrip(" ")) < 4:
            return i + m.start() + 1
    return len(text)


def _blank_line_between(text: str, a: int, b: int) -> bool:
    return re.search(r"\n[ \t]*\n", text[a:b]) is not None


def _dollar_end(text: str, i: int) -> int | None:
    """Index of the first ``$`` at brace depth 0 from ``i``, or None (commonmark-hs
    ``pDollarsMath``): a backslash escapes the next character, ``{``/``}`` nest, an
    unmatched ``}`` means no maths, and no maths crosses a blank line."""
    n = len(text)
    j = i
    depth = 0
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n" and re.match(r"\n[ \t]*\n", text[j:]):
            return None
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return None
        elif c == "$" and depth == 0:
            return j
        j += 1
    return None


def find_maths(text: str) -> list[MathSpan]:
    """Every maths span of a markdown text, in order.

    Follows the rules of the reader both routes use (pandoc's ``commonmark_x``, whose
    ``tex_math_dollars`` is commonmark-hs ``Commonmark.Extensions.Math``): maths runs
    from ``$$`` or ``$`` to the first ``$`` outside braces; ``$$…$$`` is display maths
    (the closer must be ``$$``); ``$…$`` is inline maths when the opening ``$`` has no
    whitespace right after it and the closing one no space right before it; braces must
    balance (a stray ``}`` means no maths); a ``$`` that opens nothing is text and the
    next ``$`` may open maths. ``\\(…\\)`` and ``\\[…\\]`` are not maths: commonmark_x has
    no ``tex_math_single_backslash``, so they are escaped brackets (pandoc writes a literal
    ``[`` of the sheet as ``\\[``; Mathpix's delimiters become dollars before any reading,
    :func:`tasks.convert.mathpix_maths.dollar_maths`). A backslash-escaped ``\\$`` is not
    maths, nor is anything in a code span, a fenced or indented code block (not a list item's own indented lines), an HTML comment or a raw
    HTML block (CommonMark spec 4.4, 4.5, 4.6 kinds 1, 2 and 6); no span crosses a blank line.
    Returns a list of :class:`MathSpan`; never raises.
    """
    spans: list[MathSpan] = []
    n = len(text)
    i = 0
    at_line_start = after_blank = True
    listed = False  # inside a list item, whose own lines are indented (no code block)
    while i < n:
        if at_line_start:
            at_line_start = False
            eol = text.find("\n", i)
            line = text[i:eol if eol >= 0 else n]
            indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))
            if line.strip() and indent >= 4 and after_blank and not listed:
                i = _indented_code_end(text, i)  # an indented code block: no maths in it
                at_line_start = True
                continue
            if line.strip() and indent < 4:
                listed = _LIST_ITEM.match(line) is not None
            after_blank = not line.strip()
            m = _FENCE.match(text, i)
            if m:
                fence = m.group(1)
                close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$", re.M)
                eol = text.find("\n", i)
                if eol < 0:
                    break
                c = close.search(text, eol + 1)
                if not c:
                    break  # an unclosed fence runs to the end
                i = c.end()
                continue
            # Raw HTML blocks (CommonMark spec 4.6, kinds 1 and 6): no markdown inside.
            m = _HTML_RAW.match(text, i)
            if m:
                end = re.compile(r"</" + m.group(1) + r">", re.I).search(text, m.end())
                i = end.end() if end else n
                continue
            if _HTML_BLOCK.match(text, i):
                end = re.compile(r"\n[ \t]*\n").search(text, i)
                i = end.start() if end else n
                continue
        c = text[i]
        if text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            i = end + 3 if end >= 0 else n
            continue
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if c == "`":
            run = re.match(r"`+", text[i:]).group(0)
            k = len(run)
            closing = re.compile(r"(?<!`)`{" + str(k) + r"}(?!`)")
            m = closing.search(text, i + k)
            if m and not _blank_line_between(text, i, m.start()):
                i = m.end()
            else:
                i += k
            continue
        if c == "\\":
            i += 2  # a backslash escape: ``\$``, and ``\(``/``\[`` are literal text in commonmark_x
            continue
        if c == "$":
            if text.startswith("$$", i):
                j = _dollar_end(text, i + 2)
                if j is not None and text.startswith("$$", j):
                    spans.append(MathSpan(i, j + 2, text[i + 2 : j], "$$"))
                    i = j + 2
                    continue
            elif i + 1 < n and not text[i + 1].isspace():
                j = _dollar_end(text, i + 1)
                if j is not None and not text[j - 1] == " ":
                    spans.append(MathSpan(i, j + 1, text[i + 1 : j], "$"))
                    i = j + 1
                    continue
            i += 1  # not maths: this ``$`` is text, the next one may open maths
            continue
        i += 1
    return spans


def _clean(message: str) -> str:
    # KaTeX underlines the offending characters with U+0332 COMBINING LOW LINE.
    message = message.replace("\u0332", "")
    return message.removeprefix("KaTeX parse error: ").strip()


@lru_cache(maxsize=4096)
def katex_error(tex: str, display: bool = False) -> str | None:
    """KaTeX's error for one TeX string, or ``None`` when it renders.

    ``display`` selects KaTeX's ``displayMode``. Never raises: pykatex's exceptions
    (``ParseError``, ``ValueError`` for a NUL, ``UnicodeEncodeError`` for a lone
    surrogate, anything else it may raise) become the returned message. Cached per
    ``(tex, display)``.
    """
    if len(tex) > MAX_TEX_CHARS:
        return f"not checked: {len(tex)} characters (the KaTeX check stops at {MAX_TEX_CHARS})"
    return _KATEX_THREAD.submit(_render, tex, bool(display)).result()


class _Late(Exception):
    pass


_PENDING: dict[tuple[str, bool], object] = {}
_DONE: dict[tuple[str, bool], str | None] = {}


def _timed_error(tex: str, display: bool, seconds: float) -> str | None:
    """:func:`katex_error` within ``seconds``; raises :class:`_Late` past them (the render
    goes on in KaTeX's thread and its result is cached for later)."""
    from concurrent.futures import TimeoutError as FutureTimeout

    if len(tex) > MAX_TEX_CHARS:
        return katex_error(tex, display)
    key = (tex, bool(display))
    if key in _DONE:
        return _DONE[key]
    fut = _PENDING.get(key)
    if fut is None:
        fut = _KATEX_THREAD.submit(_render, tex, bool(display))
        _PENDING[key] = fut
    try:
        result = fut.result(timeout=max(0.0, seconds))
    except FutureTimeout:
        raise _Late from None
    _PENDING.pop(key, None)
    if len(_DONE) > 4096:
        _DONE.clear()
    _DONE[key] = result
    return result


def _render(tex: str, display: bool) -> str | None:
    import pykatex

    try:
        pykatex.renderToString(tex, displayMode=display, throwOnError=True, strict="ignore")
    except pykatex.ParseError as e:
        return _clean(str(e)) or "KaTeX parse error"
    except Exception as e:  # pykatex is alpha: report whatever it raises, never fail a run
        return f"{type(e).__name__}: {e}"
    return None


@lru_cache(maxsize=4096)
def katex_mathml(tex: str, display: bool = False) -> str | None:
    """KaTeX's MathML for one TeX string (``output="mathml"``: ``<span class="katex"><math …>``,
    which a browser shows with no KaTeX fonts or stylesheet), or ``None`` when KaTeX cannot
    render it (:func:`katex_error` says why) or it is longer than :data:`MAX_TEX_CHARS`.
    ``display``: KaTeX's ``displayMode``. Never raises; cached per ``(tex, display)``; runs
    on the one KaTeX thread (see the module docstring)."""
    if len(tex) > MAX_TEX_CHARS:
        return None
    return _KATEX_THREAD.submit(_mathml, tex, bool(display)).result()


def _mathml(tex: str, display: bool) -> str | None:
    import pykatex

    try:
        return pykatex.renderToString(tex, displayMode=display, output="mathml", throwOnError=True, strict="ignore")
    except Exception:  # a parse error, or whatever alpha pykatex raises: the caller shows the TeX
        return None


def check_maths(text: str, field: str = "", budget: KatexBudget | None = None) -> list[KatexWarning]:
    """Render every maths span of ``text`` with KaTeX; one warning per span that fails.

    ``field`` is the field key put into each warning. Spans are found by
    :func:`find_maths`; ``$$…$$`` renders in display mode. With a
    ``budget`` (:class:`KatexBudget`) a span not rendered within the span budget, and every
    span once the run's budget is spent, is reported as not checked (a warning), never
    waited for. Returns the warnings in text order (empty when all render); never raises.
    """
    warnings: list[KatexWarning] = []
    for span in find_maths(text or ""):
        if budget is None:
            message = katex_error(span.tex, span.display)
        elif budget.left() <= 0:
            budget.spent_out += 1
            message = f"not checked: the KaTeX check's budget of {budget.run_seconds:g} s for the set was spent"
        else:
            try:
                message = _timed_error(span.tex, span.display, min(budget.span_seconds, budget.left()))
            except _Late:
                budget.spent_out += 1
                message = f"not checked: KaTeX took longer than {min(budget.span_seconds, budget.run_seconds):g} s"
        if message is not None:
            warnings.append(KatexWarning(field=field, tex=span.tex, message=message))
    return warnings


_UNDEFINED_CONTROL = re.compile(r"^Undefined control sequence: (\\[A-Za-z@]+)")


def katex_flags(warnings: list[KatexWarning], known: list[Flag] | None = None) -> list[Flag]:
    """One ``katex`` flag per field holding maths spans KaTeX could not render (a span that
    shows as red source on the platform usually means a macro the conversion did not expand,
    or maths split by a misread). ``warnings`` as :func:`check_maths` returns them; those with
    no field (a check outside a set) give no flag. The flag's ``a`` is the spans' TeX (one per
    line) and its reason KaTeX's messages; a field whose spans were only not checked (a time or
    length limit: :class:`KatexBudget`) says so instead of "cannot render".

    One cause, one flag: a span whose only fault is a command that a ``conversion_loss`` flag
    of ``known`` in the same question (the fields' first key segment) already names (in its ``a``, one command per line: a macro
    no file here defines, :func:`tasks.settle.tiers.conversion_loss_flags`) gives no flag of
    its own; a field left with no such span gives none."""
    named: dict[str, set[str]] = {}
    for f in known or []:
        if f.kind == "conversion_loss" and f.a:
            named.setdefault(f.field.split(".")[0], set()).update(f.a.split("\n"))  # by question
    by_field: dict[str, list[KatexWarning]] = {}
    for w in warnings:
        if not w.field:
            continue
        m = _UNDEFINED_CONTROL.match(w.message)
        if m and m.group(1) in named.get(w.field.split(".")[0], set()):
            continue
        by_field.setdefault(w.field, []).append(w)
    flags = []
    for field, ws in by_field.items():
        messages = list(dict.fromkeys(w.message for w in ws))
        spans = "maths span" if len(ws) == 1 else f"{len(ws)} maths spans"
        if all(w.message.startswith("not checked") for w in ws):
            # a time or length limit stopped the check: nothing is known to be wrong, and a run on
            # a quieter machine may check it (this flag then goes): say so, never "cannot render"
            flags.append(Flag(field=field, kind="katex", a="\n".join(w.tex for w in ws), reason=(
                f"KaTeX's check of {spans} of this field stopped at its limit ({'; '.join(messages)}): not known to "
                "fail, only not checked; check the maths renders on the platform, or run again on a quieter machine")))
            continue
        flags.append(Flag(field=field, kind="katex", a="\n".join(w.tex for w in ws), reason=(
            f"KaTeX cannot render {spans} of this field (the platform shows red source): {'; '.join(messages)}: "
            "correct the maths as the sheet has it, or keep it")))
    return flags
