"""The structure audit's checks of each field alone (:mod:`tasks.settle.audit`): empty parts
and questions, part labels left in a main text, solution text in a field students see, markup
the platform does not render."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet, field_key
from tasks.settle.markers import label_form, label_index

KIND = "structure"

_SOLUTION_MARK = re.compile(
    r"^\s*(?:(?:\*\*|__)?\s*(?:final\s+answers?|worked\s+solutions?|solutions?|answers?)\s*(?:\d+[a-z]?)?\s*[:.]?\s*(?:\*\*|__)\s*[:.]?"
    r"|(?:final\s+answers?|worked\s+solutions?|solutions?|answers?)\s*(?:\d+[a-z]?)?\s*:"
    r"|:::+\s*\{?\s*\.?(?:solution|answer)s?\b"
    r"|<div[^>]*class\s*=\s*[\"'][^\"']*\b(?:answer|solution)\b"
    r"|\\begin\{(?:solution|answer)\})",
    re.I,
)
_KATEX_ENVIRONMENTS = ("aligned", "array", "cases", "matrix", "pmatrix", "bmatrix", "vmatrix", "Bmatrix", "Vmatrix",
                       "gathered", "split", "align", "align*", "equation", "equation*", "gather", "gather*", "smallmatrix",
                       "darray", "dcases", "rcases", "alignat", "alignat*", "CD", "subarray")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$", re.S)
_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]+`", re.S)
_MARKUP = (
    (re.compile(r"^\s*:::", re.M), "a ::: fence"),
    (re.compile(r"\{\s*[.#][A-Za-z][^{}]*\}"), "a {.class} attribute"),
    (re.compile(r"<!--.*?-->", re.S), "an HTML comment"),
    (re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s+[^<>]*)?/?>"), "an HTML tag"),
    (re.compile(r"\]\(#[^)]*\)"), "an internal link"),
    (re.compile(r"(?<![\\\w^])\^[^\s^$]+\^(?!\w)"), "a ^superscript^"),
    (re.compile(r"(?<![\\\w~])~[^\s~$]+~(?!\w)"), "a ~subscript~"),
)
_ENVIRONMENT = re.compile(r"\\begin\{([A-Za-z*]+)\}")


_TEXT_LABEL = re.compile(r"^\s*(?:\*\*|__)?\s*(?:\\?\((?P<p>[a-z]{1,4}|\d{1,2})\\?\)|(?P<c>[a-z]{1,4}|\d{1,2})[.)])\s*(?:\*\*|__)?(?=[\s\u00a0]|$)")
_LINE_END_TAGS = re.compile(r"(?:\s*<[^>$]*>)+\s*$")


def labels_in_text(text: str) -> list[str]:
    """The part labels opening paragraphs or lines of ``text`` (``(a)``, ``**(b)**``, ``c)``,
    ``1.``, ``(iv)``) that run in order from the first (``a``, ``i`` or ``1``), outside
    display maths; a run after a line ending in a colon (conditions, cases) is not counted.
    ``[]`` when fewer than two such labels run."""
    found: list[str] = []
    previous = ""
    display = False
    for line in text.splitlines():
        if line.count("$$") % 2 == 1:
            display = not display
        m = None if display else _TEXT_LABEL.match(line)
        if m:
            label = m.group("p") or m.group("c")
            if not found and _LINE_END_TAGS.sub("", previous).rstrip().endswith(":"):
                return []
            found.append(label)
        if line.strip():
            previous = line
    form = label_form(found) if len(found) >= 2 else None
    if form is None:
        return []
    idx = [label_index(lb, form) for lb in found]
    if idx[0] != 1 or any(b != a + 1 for a, b in zip(idx, idx[1:])):
        return []
    return found


_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)]|\(?[A-Za-z]{1,4}[.)])(?:[ \t]|$)")


def _indented_code_cut(text: str) -> str:
    """``text`` without its indented code blocks (CommonMark 4.4: lines indented four spaces
    or more after a blank line, or opening the field, outside a list item, up to the next
    line indented less): R output such as ``<int>`` in a Word key's code is code, not a tag."""
    out, after_blank, listed, in_code = [], True, False, False
    for line in text.splitlines():
        indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))
        if in_code and line.strip() and indent < 4:
            in_code = False
        if not in_code and line.strip() and indent >= 4 and after_blank and not listed:
            in_code = True
        if not in_code and line.strip() and indent < 4:
            listed = _LIST_ITEM.match(line) is not None
        out.append("" if in_code else line)
        after_blank = not line.strip()
    return "\n".join(out)


def _stripped(text: str) -> str:
    """``text`` without maths, code spans and code blocks (where markup-like text is maths or
    code)."""
    return _MATH.sub(" ", _CODE.sub(" ", _indented_code_cut(text)))


def _markup(text: str) -> str | None:
    """What markup the platform does not render ``text`` holds, or ``None``."""
    plain = _stripped(text)
    for pattern, what in _MARKUP:
        if pattern.search(plain):
            return what
    for env in _ENVIRONMENT.findall(plain):
        if env not in _KATEX_ENVIRONMENTS:
            return f"a LaTeX environment {env}"
    return None


def field_flags(questions: SheetSet) -> list[Flag]:
    """Empty parts and questions, solution text in student-visible fields, markup in any
    field (see the module)."""
    flags: list[Flag] = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        visible = [(field_key(qi, "title"), q.title), (field_key(qi, "main_text"), q.main_text)]
        for pi, p in enumerate(parts):
            visible.append((field_key(qi, "content", pi), p.content))
            visible += [(field_key(qi, "options", pi, oi), o) for oi, o in enumerate(p.options)]
        hidden = [(field_key(qi, name, pi), getattr(p, name)) for pi, p in enumerate(parts)
                  for name in ("answer", "worked_solution")]
        if not q.main_text.strip() and not any(p.content.strip() or p.options for p in parts):
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=f"question {qi + 1} has no text a student reads"))
        if len(parts) > 1:
            for pi, p in enumerate(parts):
                if not p.content.strip() and not p.options:
                    flags.append(Flag(field=field_key(qi, "content", pi), kind=KIND, reason=(
                        f"part {pi + 1} of question {qi + 1} has no content"
                        + (" but a solution: a solution paired with a part the sheet does not have?"
                           if (p.answer.strip() or p.worked_solution.strip()) else ""))))
        labels = labels_in_text(q.main_text) if len(parts) <= 1 else []
        if labels:
            flags.append(Flag(field=field_key(qi, "main_text"), kind=KIND, a=q.main_text, reason=(
                f"the main text of question {qi + 1} holds part labels "
                f"{', '.join('(' + lb + ')' for lb in labels)}: parts not read as parts?")))
        for key, text in visible:
            if not text:
                continue
            for line in text.splitlines():
                if _SOLUTION_MARK.match(line):
                    flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                        f"solution text in a field students see: {line.strip()[:60]!r}")))
                    break
        for key, text in visible + hidden:
            if not text:
                continue
            what = _markup(text)
            if what:
                flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                    f"{what} left in the field: the platform shows it as text")))
    return flags
