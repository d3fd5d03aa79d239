"""Doubts of the audit (:mod:`tasks.settle.audit`) from how the sheet numbers its questions and
what a reading took for a question's title (issue 21: no misread without a flag on its
question). Each is a ``structure`` flag on the question it concerns:

- **sub-numbered markers among whole numbers**: markers ``Problem 5.1``, ``Problem 5.2`` in a
  sheet whose other markers are whole numbers (``4``, ``6``), each opening a question of its
  own: the parts of one question 5, read as questions? (on each of them);
- **a first marker out of the sheet's numbering**: the sheet's first marker is numbered past
  1 (``**65 minutes.**``) and the next restarts at 1: a time, a total or a date read as a
  question marker, and what it opens read as a question? (on the question it opens);
- **a first question under no heading**: every other question opens under a heading of one
  level, the first under none or under a heading of a higher level (the sheet's title): the
  sheet's head (deadlines, instructions) read as a question?
- **a title that is points**: a question whose title is only a mark count (``*4 pts*``,
  ``(10 marks)``, ``5 points``): the marker's tail read as the title, and the question's
  start may be misplaced.
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet, field_key
from tasks.settle.markers import question_markers
from tasks.settle.reading_doubts import own_levels
from tasks.settle.source_lines import opened_by_marker

KIND = "structure"

_SUB = re.compile(r"^(\d+)\.(\d+)$")
_POINTS_TITLE = re.compile(r"^[\s*_(\[]*\d+(?:[.,]\d+)?\s*(?:pts?|points?|marks?|punkte?|pkt)\.?[\s*_)\]]*$", re.I)


def number_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """The doubts of the module on the sheet's numbering (sub-numbers, a first marker out of
    the numbering); raises nothing."""
    markers = question_markers(questions_md)
    if len(markers) < 3:
        return []
    opened = opened_by_marker(questions, questions_md)
    flags: list[Flag] = []
    whole = [m for m in markers if m.number.isdigit()]
    subs = [(k, _SUB.match(m.number)) for k, m in enumerate(markers)]
    groups: dict[str, list[int]] = {}
    for k, s in subs:
        if s:
            groups.setdefault(s.group(1), []).append(k)
    if len(whole) >= 2:
        for n, ks in groups.items():
            qs = [opened[k] for k in ks if k in opened]
            if len(ks) < 2 or len(set(qs)) < 2 or any(m.number == n for m in whole):
                continue
            shown = ", ".join(markers[k].number for k in ks)
            flags += [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"the sheet numbers its questions with whole numbers but this one {markers[k].number} ({shown}, each read "
                f"as a question): the parts of one question {n}, read as questions? check where question {n} begins "
                "and what its parts are")) for k, qi in zip(ks, qs)]
    first, second = markers[0], markers[1]
    if first.number.isdigit() and int(first.number) > 1 and second.number == "1" and markers[2].number == "2":
        # the question the out-of-line marker opens; else (its text not found in the sheet) those
        # before the question marker 1 opens
        targets = [opened[0]] if 0 in opened else list(range(opened.get(1, 0)))
        flags += [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"question {qi + 1} comes before the sheet's numbering starts at 1, under {first.text.strip()[:50]!r} "
            f"(numbered {first.number}): a time, a total or a date read as a question marker? check that it is a "
            "question and that the questions after it begin where the sheet's do")) for qi in targets]
    return flags


def points_title_flags(questions: SheetSet) -> list[Flag]:
    """A title that is only a mark count (see the module); raises nothing."""
    return [Flag(field=field_key(qi, "title"), kind=KIND, a=q.title, reason=(
        f"question {qi + 1}'s title {q.title.strip()!r} is its marks, not a name: the marker's points read as the "
        f"title, so question {qi + 1} may start elsewhere than the sheet's; check its start and its parts"))
        for qi, q in enumerate(questions.root) if _POINTS_TITLE.match(q.title.strip())]


def headless_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """The first question opening under no heading, or under a heading of a higher level (the
    sheet's title), where each of the others (two or more) opens under a heading of one level
    (see the module); raises nothing."""
    if len(questions) < 3:
        return []
    levels = own_levels(questions, questions_md)
    rest = set(levels[1:])
    if len(rest) != 1 or None in rest or (levels[0] is not None and levels[0] >= min(rest)):
        return []
    under = "no heading" if levels[0] is None else f"the sheet's title (a heading of level {levels[0]})"
    return [Flag(field="q1", kind=KIND, reason=(
        f"question 1 opens under {under}, while the sheet opens each of the other {len(questions) - 1} questions "
        "under a heading of one level: the sheet's head (deadlines, instructions) read as a question? keep it if it "
        "asks something"))]
