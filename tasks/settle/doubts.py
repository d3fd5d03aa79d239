"""More structure doubts of the audit (:mod:`tasks.settle.audit`): readings that put parts,
options or questions in the wrong place, seen in the settled set alone. Each is a
``structure`` flag on the field it concerns:

- **parts inside a display equation**: a question of one part or none whose main text holds,
  inside display maths, part labels ``(a)``, ``(b)`` … in order from the first (the sheet set
  its parts out in an array);
- **later parts inside a part**: a part whose content has lines (after its first) opening with
  part labels in order that do not start from the first (``(ii)``, ``(iii)``: the parts after
  it read into it; subparts starting at ``(i)`` are left alone);
- **options left in the text**: a question none of whose parts has options, whose main text or
  a part's content has two lines or more opening with a check box (``☐``, ``☒``, ``☑``, ``□``,
  ``■``);
- **a part label as a title**: a question whose title is only a part label (``c``, ``(c)``,
  ``iv``): a part read as a question;
- **choices left in a part**: a part with no options whose content holds, after its first
  line, a numbered list ``1.``, ``2.`` … in order of short items (a line each, no question,
  no colon) not led in by a colon: the choices of a multiple choice the student answers by
  number, or steps of the part — the sheet does not say;
- **sub-sections as one text**: a question read with no parts (or one empty part) whose main
  text holds two headings or more of its shallowest level, outside code (``## Units``,
  ``## Water`` under ``# Ionic Solutions``): the sheet's parts set out as sub-sections, read as
  one text? (:func:`subsection_flags`);
- **a sub-section read as a question**: a question whose title is the title of the question
  before it and more (``Backup script`` then ``Backup script. Instructions``): the earlier
  question's own section read as a question, its steps or parts left out of it? (on both;
  :func:`continued_title_flags`)
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet, field_key
from tasks.settle.markers import label_form, label_index

KIND = "structure"

_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_LABEL_IN_MATHS = re.compile(r"(?<![A-Za-z\\])\(([a-z]|[ivx]{1,4})\)")
_LINE_LABEL = re.compile(r"^\s*(?:\*\*|__)?\s*(?:\\?\((?P<p>[a-z]{1,4}|\d{1,2})\\?\)|(?P<c>[a-z]{1,2})[.)])(?=[\s\u00a0]|$)")
_TITLE_LABEL = re.compile(r"\(?(?:[a-z]|ii|iii|iv|vi|vii|viii|ix)[.)]?")
"""A part label alone: one letter, or a roman numeral up to ix (``xi`` is a Greek letter's name too)."""
_BOX = re.compile(r"^\s*[☐☒☑□■]")
_NUMBERED = re.compile(r"^(\d{1,2})[.)]\s+(\S.*)$")
_SHORT = 15
"""Words at most in a choice."""


def _choices(content: str) -> list[str]:
    """The short numbered items (``1.``, ``2.`` … from 1, in order, a line each, none asking or
    ending in a colon) of a part's content after its first line, when a line that does not end
    in a colon leads into them; ``[]`` otherwise."""
    lines = [ln.rstrip() for ln in content.splitlines() if ln.strip()]
    for i in range(1, len(lines)):
        m = _NUMBERED.match(lines[i])
        if not m or m.group(1) != "1":
            continue
        lead = next((ln for ln in reversed(lines[:i]) if ln.strip()), "").strip().strip("*_").rstrip()
        items = []
        for ln in lines[i:]:
            m = _NUMBERED.match(ln)
            if not m:
                break
            items.append(m.group(2))
        if (len(items) >= 2 and [int(_NUMBERED.match(ln).group(1)) for ln in lines[i:i + len(items)]]
                == list(range(1, len(items) + 1)) and not lead.endswith(":")
                and all(len(t.split()) <= _SHORT and not t.endswith(("?", ":")) for t in items)):
            return items
    return []


def _in_order(labels: list[str]) -> list[int] | None:
    """The labels' indices when they run on one by one in one form, else ``None``."""
    form = label_form(labels) if len(labels) >= 2 else None
    if form is None:
        return None
    idx = [label_index(lb, form) for lb in labels]
    if None in idx or any(b != a + 1 for a, b in zip(idx, idx[1:])):  # type: ignore[operator]
        return None
    return idx  # type: ignore[return-value]


def doubt_flags(questions: SheetSet) -> list[Flag]:
    """Every doubt of the module, in question order; raises nothing."""
    flags: list[Flag] = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        if _TITLE_LABEL.fullmatch(q.title.strip()):
            flags.append(Flag(field=field_key(qi, "title"), kind=KIND, a=q.title, reason=(
                f"question {qi + 1}'s title {q.title.strip()!r} is a part label: a part read as a question? "
                "(compare with the sheet; keep if the sheet titles it so)")))
        if len([p for p in parts if p.content.strip()]) <= 1:
            for m in _DISPLAY.finditer(q.main_text):
                labels = _LABEL_IN_MATHS.findall(m.group(1))
                idx = _in_order(labels)
                if idx and idx[0] == 1:
                    flags.append(Flag(field=field_key(qi, "main_text"), kind=KIND, a=q.main_text, reason=(
                        f"the main text of question {qi + 1} holds part labels ({labels[0]})–({labels[-1]}) inside a "
                        "display equation: the sheet's parts set out in an array, not read as parts?")))
                    break
        for pi, p in enumerate(parts):
            lines = [ln for ln in p.content.splitlines() if ln.strip()][1:]
            labels = [m.group("p") or m.group("c") for ln in lines if (m := _LINE_LABEL.match(ln))]
            idx = _in_order(labels)
            if idx and idx[0] != 1:
                flags.append(Flag(field=field_key(qi, "content", pi), kind=KIND, a=p.content, reason=(
                    f"part {pi + 1} of question {qi + 1} holds lines opening ({labels[0]})–({labels[-1]}): the parts "
                    "after it read into it?")))
        for pi, p in enumerate(parts):
            items = [] if p.options else _choices(p.content)
            if items:
                flags.append(Flag(field=field_key(qi, "content", pi), kind=KIND, a=p.content, reason=(
                    f"part {pi + 1} of question {qi + 1} ends its prompt with {len(items)} short numbered items "
                    f"(1.–{len(items)}.): the choices of a multiple choice, left in the text, or steps of the part?")))
        if not any(p.options for p in parts):
            texts = [(field_key(qi, "main_text"), q.main_text)] + [(field_key(qi, "content", pi), p.content)
                                                                  for pi, p in enumerate(parts)]
            for key, text in texts:
                boxes = [ln for ln in text.splitlines() if _BOX.match(ln)]
                if len(boxes) >= 2:
                    flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                        f"{len(boxes)} lines of this field open with a check box (☐ ☒): options left in the text, "
                        "not read as a multiple choice?")))
                    break
    return flags


_HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})\s+(\S.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def subsection_flags(questions: SheetSet) -> list[Flag]:
    """One flag per question read with no parts, or one part with no content, whose main text
    holds two headings or more of its shallowest level outside code (see the module)."""
    flags = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        if len(parts) > 1 or any(p.content.strip() for p in parts):
            continue
        heads, fenced = [], False
        for line in q.main_text.splitlines():
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and (m := _HEADING_LINE.match(line)):
                heads.append((len(m.group(1)), m.group(2)))
        if not heads:
            continue
        top = min(level for level, _ in heads)
        names = [name for level, name in heads if level == top]
        if len(names) >= 2:
            shown = ", ".join(repr(n[:30]) for n in names[:3]) + (" …" if len(names) > 3 else "")
            flags.append(Flag(field=field_key(qi, "main_text"), kind=KIND, a=q.main_text, reason=(
                f"question {qi + 1} has no parts, and its main text holds {len(names)} sub-sections ({shown}): "
                "the sheet's parts set out under headings, read as one text?")))
    return flags


_CONTINUED = re.compile(r"\s*(?:[.:;,–—-]\s*|\s\()")


def continued_title_flags(questions: SheetSet) -> list[Flag]:
    """Flags on a question and the one after it when the later one's title is the earlier one's
    (two words at least) followed by more after a separator (see the module)."""
    flags, said = [], set()
    qs = questions.root
    for qi in range(len(qs) - 1):
        first, then = qs[qi].title.strip(), qs[qi + 1].title.strip()
        if len(first.split()) < 2 or not then.startswith(first) or len(then) == len(first):
            continue
        if not _CONTINUED.match(then[len(first):]):
            continue
        for k in (qi, qi + 1):
            if k not in said:
                said.add(k)
                flags.append(Flag(field=f"q{k + 1}", kind=KIND, reason=(
                    f"question {qi + 2}'s title {then[:60]!r} is question {qi + 1}'s and more: a section of question "
                    f"{qi + 1} (its steps or parts) read as a question of its own?")))
    return flags
