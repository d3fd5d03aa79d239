r"""MyST inline roles and block attribute lines as the student sees them (after
:func:`tasks.convert.myst.directives`).

MyST writes a role as ``{name}`content``` and a block's attributes on a line of their own
before it (``{.lower-alpha-paren}`` over a numbered list: the attrs_block extension). Left as
they are, ``## Question {nump}`question`{points}`10``` is a heading no reader takes for a
question, and the list under ``{.lower-alpha-paren}`` shows ``1. 2. 3.`` where the page prints
``a) b) c)``. :func:`inline_myst` rewrites (following the MyST syntax guide, "Roles" and
"Attributes"; no word added that the markup does not name):

- ``{math}`x``` → ``$x$``;
- a counting role (its name starts with ``num`` and does not end in ``ref``, its content one
  bare name: ``{nump}`question```) → the running number of that name on the page (1, 2, …);
  Sphinx's ``numref`` family points at a label and is left as it is;
- a points role (``{points}`10```, ``{marks}`2```, ``{pts}``, ``{punkte}``) whose content is a
  number → ``(10 points)``: the number and the role's own name, as a heading's points are
  written (the reader drops them from titles);
- an attribute line holding only classes (``{.lower-alpha-paren .vsep-2}``) right before a
  list is chrome: it is left out, and when one class names a list style (``lower-alpha``,
  ``upper-alpha``, ``lower-roman``, ``upper-roman``, with ``-paren``, ``-parens`` or
  ``-period``) the list's own numbers are written in that style (``(a)``, ``a.``), its
  continuation lines indented to the new marker, so both routes read the labels the page shows.

Code fences and other roles are copied as they are.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r"\{(?P<name>[A-Za-z][\w:.-]*)\}`(?P<body>[^`\n]*)`")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_ATTRS = re.compile(r"^[ \t]*\{(?P<classes>(?:\s*\.[A-Za-z][\w-]*)+)\s*\}[ \t]*$")
_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?P<num>\d{1,3})(?P<delim>[.)])(?P<gap>[ \t]+)(?=\S)")
_STYLE = re.compile(r"^(?P<case>lower|upper)-(?P<kind>alpha|roman)(?:-(?P<delim>paren|parens|period|dot))?$")

POINT_ROLES = ("points", "point", "pts", "pt", "marks", "mark", "punkte", "pkt")
"""Role names whose numeric content is the points a question or part carries."""

_ROMANS = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv",
           "xvi", "xvii", "xviii", "xix", "xx"]


def inline_myst(markdown: str) -> str:
    """``markdown`` with its MyST roles and list attribute lines rewritten as the module
    docstring says; a text holding neither is returned as it is. Never raises."""
    if "}`" not in markdown and not re.search(r"^[ \t]*\{\s*\.", markdown, re.M):
        return markdown
    lines = markdown.split("\n")
    out: list[str] = []
    counters: dict[str, int] = {}
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        f = _FENCE.match(line)
        if fence:
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not line.strip()[len(f.group(1)):].strip():
                fence = ""
            out.append(line)
            i += 1
            continue
        if f:
            fence = f.group(1)
            out.append(line)
            i += 1
            continue
        a = _ATTRS.match(line)
        if a and i + 1 < len(lines) and _opens_list(lines[i + 1]):
            style = next((s for c in a.group("classes").split() if (s := _STYLE.match(c.lstrip(".").lower()))), None)
            end = _list_end(lines, i + 1)
            block = lines[i + 1:end]
            out += _restyle(block, style) if style and _ITEM.match(lines[i + 1]) else block
            i = end
            continue
        out.append(_ROLE.sub(lambda m: _role(m, counters), line))
        i += 1
    return "\n".join(out)


def _opens_list(line: str) -> bool:
    return bool(_ITEM.match(line) or re.match(r"^[ \t]*[-*+][ \t]+\S", line))


def _role(m: re.Match, counters: dict[str, int]) -> str:
    name, body = m.group("name").lower(), m.group("body")
    if name == "math":
        return f"${body}$"
    if name.startswith("num") and not name.endswith("ref") and re.fullmatch(r"[A-Za-z][\w-]*", body.strip()):
        key = body.strip().lower()
        counters[key] = counters.get(key, 0) + 1
        return str(counters[key])
    if name in POINT_ROLES and re.fullmatch(r"\d+(?:[.,]\d+)?", body.strip()):
        start = m.start()
        before = m.string[start - 1] if start > 0 else " "
        return ("" if before.isspace() else " ") + f"({body.strip()} {m.group('name')})"
    return m.group(0)


def _list_end(lines: list[str], start: int) -> int:
    """Index after the list opening at ``start``: up to a line at or left of the list's margin
    that opens no item, after a blank line (or the end)."""
    margin = len(lines[start]) - len(lines[start].lstrip())
    j = start + 1
    while j < len(lines):
        line = lines[j]
        if line.strip() and len(line) - len(line.lstrip()) <= margin and not _opens_list(line):
            if not lines[j - 1].strip():
                return j
        j += 1
    return j


def _label(n: int, case: str, kind: str) -> str:
    if kind == "alpha":
        s = "abcdefghijklmnopqrstuvwxyz"[n - 1] if 1 <= n <= 26 else str(n)
    else:
        s = _ROMANS[n - 1] if 1 <= n <= len(_ROMANS) else str(n)
    return s.upper() if case == "upper" else s


def _restyle(block: list[str], style: re.Match) -> list[str]:
    """The list ``block`` with its top-level numbers in ``style``; each item's continuation
    lines shifted by as many columns as its marker grew (never less than they were)."""
    margin = len(block[0]) - len(block[0].lstrip())
    delim = style.group("delim") or "period"
    out: list[str] = []
    shift = 0
    for line in block:
        m = _ITEM.match(line)
        if m and len(m.group("indent")) == margin:
            label = _label(int(m.group("num")), style.group("case"), style.group("kind"))
            marker = f"({label})" if delim.startswith("paren") else label + "."
            old = len(m.group("num")) + 1 + len(m.group("gap"))
            new_gap = max(1, old - len(marker))
            shift = max(0, len(marker) + new_gap - old)
            out.append(m.group("indent") + marker + " " * new_gap + line[m.end():])
        elif line.strip() and shift and len(line) - len(line.lstrip()) > margin:
            out.append(" " * shift + line)
        else:
            out.append(line)
    return out
