r"""A preamble line pandoc cannot parse must not sink the sheet.

pandoc's LaTeX reader parses the preamble's definitions to expand them later, and stops
on one it cannot parse (``\DeclareMathOperator{\Invchi2}{Inv-\chi^2}``: ``Error at (line
43, column 29): unexpected 2``): the whole sheet would be refused, though its questions
are in the body. When pandoc's error names a line of the preamble, the top-level
command holding that line is left out of what pandoc reads (the sheet's own file is never
changed) and pandoc reads again; each line left out is a ``PreambleUnread`` conversion
note about the sheet (no field holds the preamble). An error in the body leaves out the
least piece there instead (:mod:`tasks.convert.tex_body_unread`), never the whole sheet.
"""

from __future__ import annotations

import re
from typing import Callable, TypeVar

from pylatexenc.latexwalker import LatexCommentNode

from schemas.markdown import ConversionWarning
from tasks.convert import tex_body_unread
from tasks.convert.latex import Prepared, parse_nodes
from tasks.errors import InputError

T = TypeVar("T")

MAX_CUTS = 5
"""Most preamble commands left out of one sheet before pandoc's error stands."""

_AT = re.compile(r"Error at \(line (\d+), column (\d+)\)")


def error_line(reason: str) -> int | None:
    """The 1-based line pandoc's one-line error names (``Error at (line 43, column 29)``),
    ``None`` when it names none."""
    m = _AT.search(reason)
    return int(m.group(1)) if m else None


def preamble_command(source: str, line: int) -> tuple[int, int] | None:
    r"""The span (start, end offsets, whole lines) of the top-level command of ``source``'s
    preamble (before ``\begin{document}``) that holds 1-based ``line``; ``None`` when the
    line is in the body, past the end, or holds no command (a comment, blank)."""
    lines = source.split("\n")
    if line < 1 or line > len(lines):
        return None
    at = sum(len(x) + 1 for x in lines[: line - 1])
    begin = source.find("\\begin{document}")
    if begin < 0 or at >= begin:
        return None
    for node in parse_nodes(source[:begin]):
        if node is None or isinstance(node, LatexCommentNode):
            continue
        start, end = node.pos, node.pos + node.len
        args = getattr(node, "nodeargd", None)
        if args is not None:
            end = max([end] + [a.pos + a.len for a in args.argnlist if a is not None])
        if start <= at + len(lines[line - 1]) and end > at:
            s = source.rfind("\n", 0, start) + 1
            e = source.find("\n", end)
            return s, (e if e >= 0 else begin)
    return None


def leave_out(source: str, reason: str) -> tuple[str, ConversionWarning] | None:
    """``source`` without the preamble command pandoc's error ``reason`` points at, and the
    note saying so; ``None`` when the error names no line of the preamble."""
    line = error_line(reason)
    span = preamble_command(source, line) if line else None
    if span is None:
        return None
    s, e = span
    text = source[s:e]
    note = ConversionWarning(
        kind="PreambleUnread", text=text.strip(), about="sheet",
        message=f"[sheet2lambda] pandoc cannot read this line of the preamble ({reason.split(': ', 1)[-1]}), "
                f"so it was left out and the sheet read without it: {' '.join(text.split())[:200]}")
    # the lines stay (empty) so that later line numbers still point at the sheet's
    return source[:s] + "\n" * text.count("\n") + source[e:], note


def without(tex: str, unread: list[ConversionWarning]) -> str:
    r"""``tex`` with each piece of ``unread`` made blank lines: a preamble command the first
    time its text appears before ``\begin{document}``, a piece of the body
    (``BodyUnread``, :func:`tasks.convert.tex_body_unread.without`) where the note places it."""
    for note in unread:
        if note.kind == "BodyUnread":
            tex = tex_body_unread.without(tex, note)
            continue
        at, begin = tex.find(note.text), tex.find("\\begin{document}")
        if 0 <= at < begin:
            tex = tex[:at] + "\n" * note.text.count("\n") + tex[at + len(note.text):]
    return tex


def read_past_preamble(tex: str, prepare: Callable[[str], Prepared],
                       read: Callable[[str], T]) -> tuple[Prepared, T, list[ConversionWarning]]:
    """``read`` (pandoc; raises :class:`InputError`) of ``prepare(tex)`` (the pre-pass); when
    pandoc's error names a preamble command, that command is left out of ``tex``, and when it
    names a place in the body, the least piece there
    (:func:`tasks.convert.tex_body_unread.leave_out`; when leaving it out gets pandoc no
    further, the next kind is tried instead), and the sheet prepared and read again, at most
    :data:`MAX_CUTS` pieces. Returns the prepared source, what ``read`` returned and a
    ``PreambleUnread``/``BodyUnread`` note per piece left out. Raises the last
    :class:`InputError` when pandoc still cannot read it."""
    unread: list[ConversionWarning] = []
    spot: tuple[str, str, int] | None = None  # the error, source and kind of the last body cut
    tries = 0
    while True:
        prepared = prepare(without(tex, unread))
        try:
            return prepared, read(prepared.source), unread
        except InputError as e:
            if tries > 2 * MAX_CUTS:
                raise
            out = leave_out(prepared.source, e.problem) if len(unread) < MAX_CUTS else None
            if out is None and len(unread) <= MAX_CUTS:
                problem, source, kind = e.problem, prepared.source, 0
                if spot is not None and spot[0] == e.problem and unread:  # that cut got pandoc no further
                    unread.pop()
                    problem, source, kind = spot[0], spot[1], spot[2] + 1
                out = tex_body_unread.leave_out(source, problem, kind)
                spot = (problem, source, kind)
                tries += 1
            now = without(tex, unread)
            if out is None or without(now, [out[1]]) == now:
                raise
            unread.append(out[1])
