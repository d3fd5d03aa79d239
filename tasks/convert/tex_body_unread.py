r"""TeX in a sheet's body that pandoc cannot parse: leave out the least, read the rest.

LaTeX forgives what pandoc's reader refuses, and one such spot in the body used to refuse
the whole sheet. The kinds, each found from pandoc's error (``Error at (line L, column C):
unexpected …``) and the sheet's text there, tried in this order:

- **a command given no argument**: a command that takes one (``\mbox``, ``\textbf``) written
  bare at the end of a line; TeX takes the next token as its argument, so does pandoc, which
  then stops on what follows (``\mbox`` ⏎ ``\section{Problem 2}``: ``unexpected {``). The bare
  command before the one pandoc stops in is left out (it prints nothing of the sheet's words);
- **a closer with no opener**: a stray ``}`` or ``\end{name}`` where pandoc stops is left out;
- **an opener never closed** (``unexpected end of input``): the last ``\begin{name}`` with no
  ``\end`` (pandoc says ``expecting \end{name}``), else the last ``{`` never closed, is left
  out, its text read as the paragraph it stands in;
- anything else: the line pandoc stops at is left out.

Each cut is a ``BodyUnread`` conversion note. A cut holding none of the sheet's words (a
bare command, a brace, an environment's ``\begin``) concerns no field (``about="sheet"``,
a line of the report); a line left out holds text a field lacks, so it is a content note
placed by the words before it (a ``conversion_loss`` flag on that field).
"""

from __future__ import annotations

import re

from schemas.markdown import ConversionWarning

_AT = re.compile(r"Error at (?:\"[^\"]*\" )?\(line (\d+), column (\d+)\)")
_BARE = re.compile(r"\\[A-Za-z@]+\*?(?=[ \t]*(?:%[^\n]*)?\n)")
_WORDS = re.compile(r"[A-Za-z]{2,}")


def _offset(source: str, line: int, column: int) -> int | None:
    lines = source.split("\n")
    if line < 1 or line > len(lines):
        return None
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(0, min(column - 1, len(lines[line - 1])))


def _line_of(source: str, at: int) -> int:
    return source.count("\n", 0, at) + 1


def _body_start(source: str) -> int:
    begin = source.find("\\begin{document}")
    return begin + len("\\begin{document}") if begin >= 0 else 0


def _uncommented(source: str, start: int, end: int) -> list[tuple[int, str]]:
    """Braces, ``\\begin{…}`` and ``\\end{…}`` of ``source`` from ``start``, as (offset, token),
    comments and escaped braces skipped."""
    out = []
    for m in re.finditer(r"\\[{}%]|%[^\n]*|\\(?:begin|end)\{[^}\n]*\}|[{}]", source[start:end]):
        t = m.group(0)
        if t.startswith("%") or t in ("\\{", "\\}", "\\%"):
            continue
        out.append((start + m.start(), t))
    return out


def _bare_before(source: str, at: int, start: int) -> tuple[int, int] | None:
    r"""The bare command (no argument, at a line's end) just before the command holding
    offset ``at``, with only blank space and comments between them."""
    head = source.rfind("\\", start, at + 1)
    bare = list(_BARE.finditer(source, start, head)) if head >= 0 else []
    if bare and re.fullmatch(r"(?:\s|%[^\n]*)*", source[bare[-1].end():head]):
        return bare[-1].start(), bare[-1].end()
    return None


def _stray_closer(source: str, at: int) -> tuple[int, int] | None:
    """A ``}`` or ``\\end{name}`` starting at offset ``at``, or ending just before it (pandoc
    names either place)."""
    closer = re.compile(r"\}|\\end\{(?!document\})[^}\n]*\}")
    if m := closer.match(source, at):
        return m.start(), m.end()
    line = source.rfind("\n", 0, at) + 1
    ends = [m for m in closer.finditer(source, line, at) if not source[m.end():at].strip()]
    return (ends[-1].start(), ends[-1].end()) if ends else None


def _unclosed(source: str, start: int, reason: str, end: int) -> tuple[int, int] | None:
    r"""The last opener of the body never closed: ``\begin{name}`` (with its arguments when
    pandoc names the environment it expects an end of), else a ``{``."""
    stack: list[tuple[int, str]] = []
    for at, t in _uncommented(source, start, end):
        if t == "{" or t.startswith("\\begin"):
            stack.append((at, t))
        elif t == "}":
            while stack and stack[-1][1] != "{":
                stack.pop()
            if stack:
                stack.pop()
        else:  # \end{name}
            name = t[5:-1]
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][1] == f"\\begin{{{name}}}":
                    del stack[i:]
                    break
    expected = re.search(r"expecting (\\end\{[^}]*\})", reason)
    for at, t in reversed(stack):
        if expected and t == "\\begin" + expected.group(1)[4:]:
            end = at + len(t)
            while m := re.compile(r"\s*(\[[^\]\n]*\]|\{[^{}\n]*\})").match(source, end):
                end = m.end()
            return at, end
    if stack:
        at, t = stack[-1]
        if t == "{":
            return at, at + 1
        end = at + len(t)
        while m := re.compile(r"\s*(\[[^\]\n]*\]|\{[^{}\n]*\})").match(source, end):
            end = m.end()
        return at, end
    return None


def _error_line(source: str, at: int) -> tuple[int, int] | None:
    s = source.rfind("\n", 0, at) + 1
    e = source.find("\n", at)
    e = len(source) if e < 0 else e
    return (s, e) if source[s:e].strip() else None


def leave_out(source: str, reason: str, tried: int = 0) -> tuple[str, ConversionWarning] | None:
    r"""``source`` without the piece of its body pandoc's error ``reason`` points at (see the
    module's kinds; ``tried`` skips that many of the kinds that apply, when leaving out the
    first did not get pandoc past the spot), and the ``BodyUnread`` note saying so. ``None``
    when the error names no place of the body or no kind applies."""
    m = _AT.search(reason)
    if m is None:
        return None
    start = _body_start(source)
    at = _offset(source, int(m.group(1)), int(m.group(2)))
    if at is None or at < start:
        return None
    at = min(at, len(source))
    if "unexpected end of input" in reason:
        spans = [_unclosed(source, start, reason, len(source))]
    else:
        spans = [_bare_before(source, at, start), _stray_closer(source, at), _unclosed(source, start, reason, at),
                 _error_line(source, at)]
    spans = [s for s in dict.fromkeys(spans) if s is not None]
    if tried >= len(spans):
        return None
    s, e = spans[tried]
    text = source[s:e]
    near = " ".join(_WORDS.findall(re.sub(r"\\[A-Za-z@]+", " ", source[max(start, s - 300):s]))[-8:])
    words = (s, e) == spans[-1] and spans[-1] == _error_line(source, at)  # only a whole line holds text
    what = "this line" if words else f"{text.strip()!r}"
    note = ConversionWarning(
        kind="BodyUnread", text=text.strip(), about="content" if words else "sheet",
        line=_line_of(source, s), near=near if words else "",
        message=f"[sheet2lambda] pandoc cannot read the sheet here (line {_line_of(source, s)}: "
                f"{reason.split(': ', 1)[-1][:120]}), so {what} was left out and the rest read: "
                f"{' '.join(text.split())[:200]}")
    return source[:s] + "\n" * text.count("\n") + source[e:], note


def without(tex: str, note: ConversionWarning) -> str:
    r"""``tex`` with the piece of a ``BodyUnread`` note left out: its text where it stands in
    the body nearest the note's line (the pre-pass keeps the sheet's lines, nearly)."""
    start = _body_start(tex)
    best = None
    pattern = re.escape(note.text) + (r"(?![A-Za-z@])" if re.search(r"[A-Za-z@]$", note.text) else "")
    for m in re.finditer(pattern, tex[start:]):
        at = start + m.start()
        d = abs(_line_of(tex, at) - (note.line or 0))
        if best is None or d < best[0]:
            best = (d, at)
    if best is None:
        return tex
    at = best[1]
    return tex[:at] + "\n" * note.text.count("\n") + tex[at + len(note.text):]
