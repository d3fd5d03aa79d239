r"""LiaScript quizzes as the student sees them, written in the markers both routes read.

LiaScript (https://liascript.github.io, its documentation's "Quizzes" section) is a markdown
dialect for courses whose quizzes are bracket lines:

- multiple choice ``[[X]] option`` / ``[[ ]] option`` and single choice ``[(X)] option`` /
  ``[( )] option``, one line each (a leading ``- `` or an indent allowed; ``x`` as ``X``);
- a matrix: a header ``[[col 1] (col 2) [col 3]]`` naming the columns, then rows
  ``[ [X] [ ] ( ) ] row text`` (checkboxes or radio buttons per column);
- a selection ``[[ a | (b) | c ]]``: the options between bars, the right ones in parentheses
  (one at least: a wiki link ``[[Page|alias]]`` is none);
- a text quiz ``[[answer]]`` alone on its line (the student types; the answer is hidden);
- a solution: the lines between two lines of three or more ``*`` right after the quiz, shown
  once the quiz is answered; ``{{1}}`` / ``--{{1}}--`` lines are animation steps, and a
  comment of attributes after an element (``![](a.svg)<!-- style="width:8cm;" -->``) styles it
  (both chrome, left out).

A student sees each option without its mark, and the marks are the options' correctness;
in the contract that is a task list (``- [x] option`` / ``- [ ] option``: the options of the
part it ends, the ``[x]`` ones correct), so :func:`liascript_quizzes` writes each quiz so:

- a choice block → one task list, its marks kept as ``[x]``/``[ ]``;
- a selection → a task list of its options, the parenthesised ones ``[x]``;
- a matrix → each row a part (a ``::: {.part}`` div: the row text, then the columns as a task
  list marked as the row marks them); rows right after a numbered item belong to that item
  (the item is the part, its number cut: each row's text and its columns follow it);
- a text quiz → a ``solution`` div holding its answer;
- a solution block → a ``solution`` div after the quiz it follows.

Where a section (the text between two headings) holds two quizzes or more that are not
matrix rows, each quiz with the paragraph just before it (its prompt, a bullet or number
marker cut) is a part div. A quiz alone in its section is the question's one part; its prompt stays
in the main text. A page is read as LiaScript only when it holds a choice block of two lines
or more, a matrix or a selection; a bracket line that fits no kind is copied as it is.
Code fences are copied whole.
"""

from __future__ import annotations

import re

_CHOICE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\[(?:\[(?P<mc>[ xX]?)\]|\((?P<sc>[ xX]?)\))\][ \t]+(?P<text>\S.*?)[ \t]*$")
_ROW = re.compile(r"^[ \t]*\[(?P<cells>(?:[ \t]*(?:\[[ xX*]{0,2}\]|\([ xX*]{0,2}\)))+)[ \t]*\][ \t]*(?P<text>.*?)[ \t]*$")
_CELL = re.compile(r"\[([ xX*]{0,2})\]|\(([ xX*]{0,2})\)")
_SELECT = re.compile(r"^[ \t]*\[\[(?P<body>[^\n]*\|[^\n]*)\]\][ \t]*$")
_TEXT_QUIZ = re.compile(r"^[ \t]*\[\[(?P<answer>[^\[\]|\n]+)\]\][ \t]*$")
_RULE = re.compile(r"^[ \t]*\*{3,}[ \t]*$")
_STEP = re.compile(r"^[ \t]*(?:--)?\{\{\d+(?:-\d+)?\}\}(?:--)?[ \t]*$")
_ATTR_COMMENT = re.compile(r"(?<=\S)[ \t]*<!--(?:\s*[\w-]+\s*=\s*\"[^\"]*\")+\s*-->")
_HEADING = re.compile(r"^#{1,6}[ \t]+\S")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_NUMBERED = re.compile(r"^[ \t]*\d{1,3}[.)][ \t]+\S")
_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")


def liascript_quizzes(markdown: str) -> str:
    """``markdown`` with its LiaScript quizzes rewritten as the module docstring says; a page
    holding none is returned as it is. Never raises."""
    lines = markdown.split("\n")
    if not _is_liascript(lines):
        return markdown
    sections: list[list[str]] = [[]]
    fence = ""
    for line in lines:
        f = _FENCE.match(line)
        if fence:
            fence = "" if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) else fence
        elif f:
            fence = f.group(1)
        elif _HEADING.match(line):
            sections.append([])
        sections[-1].append(line)
    return "\n".join(_ATTR_COMMENT.sub("", ln) for s in sections for ln in _section(s))


def _is_liascript(lines: list[str]) -> bool:
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _CHOICE.match(line) and _CHOICE.match(nxt):
            return True
        if _header(line) and _ROW.match(nxt):
            return True
        if (m := _SELECT.match(line)) and _selection(m.group("body")):
            return True
    return False


def _header(line: str) -> list[str] | None:
    """The column names of a matrix header ``[[a] (b) [c]]``, else None."""
    s = line.strip()
    if not (s.startswith("[") and s.endswith("]")) or len(s) < 4:
        return None
    inner, cols, i = s[1:-1], [], 0
    while i < len(inner):
        if inner[i].isspace():
            i += 1
            continue
        if inner[i] not in "[(":
            return None
        close = "]" if inner[i] == "[" else ")"
        depth, j = 0, i
        while j < len(inner):
            if inner[j] == inner[i]:
                depth += 1
            elif inner[j] == close:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(inner):
            return None
        cols.append(inner[i + 1:j].strip())
        i = j + 1
    return cols or None


def _options(body: str) -> tuple[list[str], list[bool]]:
    texts, marks = [], []
    for raw in body.split("|"):
        t = raw.strip()
        right = len(t) >= 2 and t.startswith("(") and t.endswith(")")
        texts.append(t[1:-1].strip() if right else t)
        marks.append(right)
    return [t for t in texts if t], [m for t, m in zip(texts, marks) if t]


def _selection(body: str) -> bool:
    """A selection's body: two options or more, one marked right (a wiki link ``[[Page|alias]]``
    marks none)."""
    texts, marks = _options(body)
    return len(texts) >= 2 and any(marks)


def _task_list(texts: list[str], marks: list[bool]) -> list[str]:
    return [f"- [{'x' if m else ' '}] {t}" for t, m in zip(texts, marks)]


def _section(lines: list[str]) -> list[str]:
    """One section's lines rewritten: quiz units found, then written (part divs when two or
    more quizzes that are not matrix rows share the section)."""
    units: list[tuple[int, int, str, list[str]]] = []  # (start, end, kind, written lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _CHOICE.match(line):
            j = i
            texts, marks = [], []
            while j < len(lines) and (m := _CHOICE.match(lines[j])):
                texts.append(m.group("text"))
                marks.append(bool((m.group("mc") or m.group("sc") or "").strip()))
                j += 1
            units.append((i, j, "choice", _task_list(texts, marks)))
            i = j
        elif (cols := _header(line)) and _ROW.match(nxt):
            j = i + 1
            rows = []
            while j < len(lines) and (m := _ROW.match(lines[j])):
                cells = [bool(re.search("[xX]", a or b)) for a, b in _CELL.findall(m.group("cells"))]
                rows.append((m.group("text"), cells))
                j += 1
            in_item = _after_item(lines, i)
            units.append((i, j, "item" if in_item else "matrix", _matrix(cols, rows, in_item)))
            i = j
        elif (m := _SELECT.match(line)) and _selection(m.group("body")):
            units.append((i, i + 1, "select", _task_list(*_options(m.group("body")))))
            i += 1
        elif (m := _TEXT_QUIZ.match(line)) and m.group("answer").strip() not in ("", "X", "x", "?", "!"):
            units.append((i, i + 1, "text", ["::: {.solution}", m.group("answer").strip(), ":::"]))
            i += 1
        else:
            i += 1
    if not units:
        return [ln for ln in lines if not _STEP.match(ln)]
    wrap = sum(1 for u in units if u[2] != "matrix") >= 2
    out: list[str] = []
    at = 0
    for start, end, kind, written in units:
        solution, end = _solution(lines, end)
        lead = lines[at:start]
        prompt: list[str] = []
        if wrap and kind != "matrix":
            k = len(lead)
            while kind == "item" and k > 0 and not lead[k - 1].strip():
                k -= 1  # a numbered item's rows follow it after a blank line
            while k > 0 and lead[k - 1].strip() and not _HEADING.match(lead[k - 1]):
                k -= 1
            prompt = [ln for ln in lead[k:] if ln.strip()]
            lead = lead[:k]
            if prompt:  # the item's marker is markup: the part is the item
                marker = _MARKER.match(prompt[0])
                width = len(marker.group(0)) if marker else 0
                prompt = [prompt[0][width:], *(ln[width:] if ln[:width].isspace() else ln.lstrip() for ln in prompt[1:])]
        out += [ln for ln in lead if not _STEP.match(ln)]
        block = [*prompt, *([""] if prompt else []), *written, "", *solution]
        out += ["", "::: {.part}", *block, ":::", ""] if wrap and kind != "matrix" else ["", *block]
        at = end
    out += [ln for ln in lines[at:] if not _STEP.match(ln)]
    return out


def _after_item(lines: list[str], start: int) -> bool:
    """The paragraph before line ``start`` (after a blank line) is a numbered list item."""
    k = start - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    while k > 0 and lines[k - 1].strip():
        k -= 1
    return k >= 0 and bool(_NUMBERED.match(lines[k]))


def _matrix(cols: list[str], rows: list[tuple[str, list[bool]]], in_item: bool) -> list[str]:
    out: list[str] = []
    for text, cells in rows:
        marks = [cells[c] if c < len(cells) else False for c in range(len(cols))]
        body = [*([text, ""] if text else []), *_task_list(cols, marks)]
        out += [*body, ""] if in_item else ["::: {.part}", *body, ":::", ""]
    return out


def _solution(lines: list[str], end: int) -> tuple[list[str], int]:
    """A solution block right after a quiz ending at ``end`` (a rule of ``*``, its body, a rule):
    its lines as a ``solution`` div and the index after it; else nothing and ``end``."""
    if end >= len(lines) or not _RULE.match(lines[end]):
        return [], end
    close = next((j for j in range(end + 1, len(lines)) if _RULE.match(lines[j])), None)
    if close is None:
        return [], end
    body = [ln for ln in lines[end + 1:close] if not _STEP.match(ln)]
    while body and not body[0].strip():
        body.pop(0)
    return ["::: {.solution}", *body, ":::", ""], close + 1
