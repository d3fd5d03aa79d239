"""Numbered lists under headings read one question per item: a doubt of the audit
(:mod:`tasks.settle.audit`). A sheet whose sections each hold a numbered list that restarts at 1
after the section's heading (``# Topic`` then ``1.``, ``2.``; ``# Next topic`` then ``1.`` again)
numbers the tasks of each section on its own: the section is a question and its items its parts,
or each item a question grouped by the heading — the sheet does not say. When one such list is read
as several questions, one per item (:func:`headed_list_flags`), each of them is flagged: the
section's items read as questions, its question lost? (LyX and Org-mode exports of homeworks set
their tasks so, under ``\\section``s with no number word.)"""

from __future__ import annotations

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.settle.markers import Marker, question_markers
from tasks.settle.source_lines import SourceLines, opened_by_marker, question_starts

KIND = "structure"


def _headed_lists(markers: list[Marker]) -> list[list[int]]:
    """The runs of ``markers`` (indices) that start at an item ``1.`` with a heading before it and
    go on ``2.``, ``3.`` … with no heading between: one per list a section opens with 1."""
    runs: list[list[int]] = []
    for k, m in enumerate(markers):
        if m.number == "1" and m.heading_before:
            runs.append([k])
        elif runs and runs[-1] and not m.heading_before and m.number.isdigit() and markers[runs[-1][-1]].number.isdigit() \
                and int(m.number) == int(markers[runs[-1][-1]].number) + 1:
            runs[-1].append(k)
        else:
            runs.append([])  # a marker of no such list ends the one before
    return [r for r in runs if r]


def headed_list_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """Flags on the questions read one per item from a numbered list of two items or more that a
    heading opens at 1, in a sheet that restarts its items at 1 under two headings or more, when the
    reading itself shows the items belong together: another such list of the sheet is read as one
    question (its items that question's parts), or the text between the heading and the list (the
    section's context) is read into the first item's question alone. ``structure`` on each question
    of the list, naming its lines (see the module); ``[]`` when the sheet's question markers are
    headings or bold markers (its items are then no question markers)."""
    markers = question_markers(questions_md)
    runs = [r for r in _headed_lists(markers) if len(r) >= 2 or markers[r[0]].heading_before]
    if len(runs) < 2:
        return []
    opened = opened_by_marker(questions, questions_md, markers)
    starts = question_starts(questions, SourceLines(questions_md))
    per_run = [sorted({opened[k] for k in run if k in opened}) for run in runs]
    one_question = any(len(run) >= 2 and len(qis) == 1 for run, qis in zip(runs, per_run))
    flags: list[Flag] = []
    for run, qis in zip(runs, per_run):
        if len(run) < 2 or len(qis) < 2:
            continue
        first, last = markers[run[0]].line, markers[run[-1]].line
        at = starts[qis[0]]
        lead_in = run[0] in opened and at is not None and at + 1 < first
        if not (one_question or lead_in):
            continue
        why = ("the section's context before it is read into question "
               f"{qis[0] + 1} alone" if lead_in else "another list the sheet opens so is read as one question's parts")
        for qi in qis:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"the numbered list under a heading (lines {first}-{last}) is read as {len(qis)} questions "
                f"({', '.join(str(q + 1) for q in qis)}), one per item, and {why}: the section one question "
                "and its items its parts?")))
    return flags
