"""The structure audit's checks against the sheet's own markers (:mod:`tasks.settle.audit`):
question markers that skip, repeat or open no question, two questions under one marker, a
numbered list that may be parts or questions, part labels out of sequence, a solution block the
conversion emptied, solutions numbered for no question."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.settle.markers import label_form, label_index, numbers_doubtful, question_markers, restarting_lists
from tasks.settle.source_lines import SourceLines, question_starts

KIND = "structure"


def marker_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """The question-marker checks of the module (numbers, count, questions per marker)."""
    flags: list[Flag] = []
    markers = question_markers(questions_md)
    if not markers:
        return flags
    src = SourceLines(questions_md)
    starts = question_starts(questions, src)

    def owner(line: int) -> int | None:
        """The question (0-based) whose text starts last at or before 1-based ``line``."""
        best = None
        for qi, s in enumerate(starts):
            if s is not None and s + 1 <= line:
                best = qi
        return best

    under: dict[int, list[int]] = {}
    for qi, s in enumerate(starts):
        if s is None:
            continue
        before = [k for k, m in enumerate(markers) if m.line <= s + 1]
        if not before:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"question {qi + 1} starts (line {s + 1}) before the sheet's first question marker "
                f"({markers[0].text!r}, line {markers[0].line}): chrome read as a question?")))
            continue
        under.setdefault(before[-1], []).append(qi)
    for k, qis in under.items():
        for qi in qis[1:]:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"questions {qis[0] + 1} and {qi + 1} both start under the marker {markers[k].text!r} "
                f"(line {markers[k].line}): one question read as two?")))
    if any(s is not None for s in starts):
        for k, m in enumerate(markers):
            if k in under:
                continue
            qi = owner(m.line)
            where = f"q{qi + 1}" if qi is not None else f"source:{m.line}"
            into = f"it was read into question {qi + 1}, or lost" if qi is not None else "its text is in no question"
            flags.append(Flag(field=where, kind=KIND, reason=(
                f"the sheet's question marker {m.text!r} (line {m.line}) opens no question of the set: {into}")))
    for m, why in numbers_doubtful(markers):
        qi = owner(m.line)
        flags.append(Flag(field=f"q{qi + 1}" if qi is not None else f"source:{m.line}", kind=KIND, reason=(
            f"the sheet's question numbering {why} at {m.text!r} (line {m.line}): a question lost or misnumbered?")))
    if len(markers) != len(questions) and not flags:  # else the flags above name where they differ
        flags.append(Flag(field="set", kind=KIND, reason=(
            f"the sheet has {len(markers)} question markers and the set {len(questions)} questions")))
    return flags


def layout_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """In the paragraph layout (:func:`restarting_lists`), each question whose parts came
    from a numbered list restarting at 1 (its first part the list's first item): whether
    those items are its parts or questions of their own, the sheet does not say, so a
    person reads it."""
    lists = restarting_lists(questions_md)
    if not lists:
        return []
    src = SourceLines(questions_md)
    starts = question_starts(questions, src)
    flags = []
    for items in lists:
        owner = None
        for qi, st in enumerate(starts):
            if st is not None and st + 1 <= items[0].line:
                owner = qi
        if owner is None or len(questions.root[owner].normalised_parts()) < 2:
            continue
        # read as parts only when the question's first part is the list's first item (a
        # reading that took each item as a question of its own has other parts, if any)
        first = next((p.content for p in questions.root[owner].normalised_parts() if p.content.strip()), "")
        if src.find(first, starts[owner] or 0) != items[0].line - 1:
            continue
        flags.append(Flag(field=f"q{owner + 1}", kind=KIND, reason=(
            f"the numbered list at line {items[0].line} ({len(items)} items) restarts at 1 after a paragraph and was "
            f"read as the parts of question {owner + 1}: the sheet does not say whether its items are parts or "
            f"questions")))
    return flags


def part_label_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """Part labels that skip, repeat, restart or run backwards inside a question (the label
    opening the first source line of each part's text that opens with one)."""
    flags: list[Flag] = []
    src = SourceLines(questions_md)
    starts = question_starts(questions, src)
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        if len(parts) < 2:
            continue
        at = starts[qi] or 0
        labels: list[str] = []
        for p in parts:
            label = None
            for line in (p.content or "").splitlines():
                if not line.strip():
                    continue
                i = src.find(line, at)
                if i is None:
                    continue
                at = i
                label = src.label(i)
                if label:
                    break
            if label is None:
                break
            labels.append(label)
        if len(labels) < len(parts):
            continue
        form = label_form(labels)
        if form is None:
            continue
        idx = [label_index(lb, form) for lb in labels]
        if None in idx:
            continue
        for pi in range(1, len(idx)):
            a, b = idx[pi - 1], idx[pi]
            if b == a + 1:
                continue
            if b == a:
                why = f"repeats ({labels[pi]})"
            elif b == 1:
                why = f"restarts at ({labels[pi]})"
            elif b > a:
                why = f"skips from ({labels[pi - 1]}) to ({labels[pi]})"
            else:
                why = f"runs back from ({labels[pi - 1]}) to ({labels[pi]})"
            flags.append(Flag(field=f"q{qi + 1}.p{pi + 1}", kind=KIND, reason=(
                f"part labels of question {qi + 1} {why}: a part lost, split or taken from elsewhere?")))
    return flags


_SOLUTION_FENCE = re.compile(r"^\s*:::+\s*\{?\s*\.?(?:solution|answer)s?\b[^\n]*$", re.I)
_FENCE_CLOSE = re.compile(r"^\s*:::+\s*$")


def empty_solution_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """A solution block of the sheet (``::: {.solution}``) that holds nothing once
    converted: what it held (a drawing, an environment pandoc skips) was lost, so the
    question it belongs to has a solution the set cannot give. One flag on that question
    (the one whose text starts last before the block), else on the block's line."""
    lines = questions_md.splitlines()
    empty: list[int] = []
    for i, line in enumerate(lines):
        if not _SOLUTION_FENCE.match(line):
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and _FENCE_CLOSE.match(lines[j]):
            empty.append(i + 1)
    if not empty:
        return []
    starts = question_starts(questions, SourceLines(questions_md))
    flags: list[Flag] = []
    for line in empty:
        qi = max((k for k, st in enumerate(starts) if st is not None and st + 1 <= line), default=None)
        flags.append(Flag(field=f"q{qi + 1}" if qi is not None else f"source:{line}", kind=KIND, reason=(
            f"the sheet's solution block at line {line} is empty once converted (its content was lost): "
            "a solution the set does not give")))
    return flags


def solution_number_flags(questions_md: str, solutions_md: str | None, known: list[Flag]) -> list[Flag]:
    """A solutions document's numbers that name no question marker of the questions
    document (both numbered), unless a flag in ``known`` already names that solution."""
    if not solutions_md:
        return []
    q_numbers = {m.number for m in question_markers(questions_md)}
    s_markers = question_markers(solutions_md, solutions=True)
    if not q_numbers or not s_markers:
        return []
    said = " ".join(f.reason for f in known if f.field == "solutions")
    return [Flag(field=f"solutions:{m.line}", kind=KIND, a=m.text, reason=(
                f"solution {m.number} (line {m.line} of the solutions) matches no question number of the sheet"))
            for m in s_markers if m.number not in q_numbers and f"solution {m.number} " not in said]
