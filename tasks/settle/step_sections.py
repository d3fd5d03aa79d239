"""Sections numbered under a task, read as questions: a doubt of the audit
(:mod:`tasks.settle.audit`).

Workshop notebooks and lab handouts name each task with a word and a number (``### Task 2``)
and then give each of its steps a section of its own to work in, numbered under the task
(``### 2.1 - Import the file``, ``### 2.2 - Read one spectrum``), often with nothing in it but
an empty code cell. A reader that opens a question at every numbered heading reads those
sections as questions of their own, when they are the task's steps (or their work space). The
check: a question whose text starts at a heading numbered ``N.k`` with no word before the number,
while the last worded marker before it (``Task N``, ``Exercise N``) bears the number ``N`` — one
``structure`` flag on that question.
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.settle.markers import question_markers
from tasks.settle.source_lines import SourceLines, question_starts

KIND = "structure"

_BARE_DOTTED = re.compile(r"^#{1,6}\s+(\d+)\.(\d+)\b")
_WORDED = re.compile(r"^(?:#{1,6}\s+|\*\*)\s*[^\W\d_][^\d\n]*?\s(\d+)(?:\.\d+)*\b", re.UNICODE)


def step_section_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """One flag per question opened at a bare ``N.k`` heading that follows the worded marker
    ``… N`` (module docstring); none when the sheet has no such pair. Raises nothing."""
    markers = question_markers(questions_md)
    if len(markers) < 2:
        return []
    starts = question_starts(questions, SourceLines(questions_md))
    flags = []
    for qi, start in enumerate(starts):
        if start is None:
            continue
        # the marker that opened the question: the last one at or just before its first line
        opener = next((m for m in reversed(markers) if start - 3 <= m.line <= start + 1), None)
        bare = opener and _BARE_DOTTED.match(opener.text)
        if not bare:
            continue
        worded = next((m for m in reversed(markers) if m.line < opener.line and _WORDED.match(m.text)), None)
        if worded is None or _WORDED.match(worded.text).group(1) != bare.group(1):
            continue
        flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"question {qi + 1} opens at '{opener.text.lstrip('#').strip()}' (line {opener.line}), a section "
            f"numbered under '{worded.text.lstrip('#* ').rstrip('* ')}' (line {worded.line}): a step of that task, "
            "or its work space, read as a question? Check where the task's steps are")))
    return flags
