"""The structure audit's checks against the sheet's own markers (:mod:`tasks.settle.audit`):
question markers that skip, repeat or open no question, two questions under one marker (on the
first as well when a later one holds only code or maths: its later parts read as questions), a
numbered list that may be parts or questions, part labels out of sequence, a solution block the
conversion emptied, solutions numbered for no question."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.read.discovery import ast, closing_paragraphs
from tasks.read.joined_labels import names_a_part
from tasks.read.named_sections import named_sections, opened as sections_opened
from tasks.settle.coverage import field_texts, uncovered
from tasks.settle.markers import label_form, label_index, numbers_doubtful, question_markers, restarting_lists
from tasks.settle.source_lines import SourceLines, question_starts

KIND = "structure"


def marker_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """The question-marker checks of the module (numbers, count, questions per marker).

    Each question belongs to the last marker at or before the line its text starts on; or,
    when that marker belongs to the question before it, to the first marker inside its own
    text (a question whose text opens with a lead-in paragraph before its marker: a stem
    read with the question it leads into). A numbered-list marker that opens a part of the
    question it sits in was read, as a part. A numbering that skips, repeats or runs back is
    the sheet's own when the markers on both sides open questions and no line between them is
    in no field: nothing was lost, so it is no doubt."""
    flags: list[Flag] = []
    markers = question_markers(questions_md)
    if not markers:
        return flags
    named = named_sections(questions_md)
    if named and len(named) == len(questions) and sections_opened(named, questions) == 1.0:
        return flags  # its sections, whose headings name tasks, are the questions: the numbered items their parts
    src = SourceLines(questions_md)
    starts = question_starts(questions, src)
    ends = _span_ends(starts, len(src.lines))

    def owner(line: int) -> int | None:
        """The question (0-based) whose text starts last at or before 1-based ``line``."""
        best = None
        for qi, s in enumerate(starts):
            if s is not None and s + 1 <= line:
                best = qi
        return best

    if (len(questions) >= 2 and sum(m.number == "1" for m in markers) >= 2
            and all(_opens_part(m, questions) for m in markers)):
        # every marker is a numbered item the reading opened a part at (tasks numbered again
        # under each heading, read as the heading's parts): the reading explains them all
        return flags

    def _in_text_of_earlier(m, qi: int) -> bool:
        """Is marker ``m`` inside the text of a question before ``qi`` (a list of its own)?"""
        q = owner(m.line)
        return q is not None and q < qi and bool(src.lines[m.line - 1]) and src.lines[m.line - 1][:80] in _joined(
            questions.root[q])

    under: dict[int, list[int]] = {}
    taken: set[int] = set()
    lead_ins: set[int] = set()
    for qi, s in enumerate(starts):
        if s is None:
            continue
        before = [k for k, m in enumerate(markers) if m.line <= s + 1]
        inside = [k for k, m in enumerate(markers) if s + 1 < m.line <= ends[qi]
                  and _continues_past(questions.root[qi], src, m.line, ends[qi])]
        if inside and (not before or before[-1] in taken or _in_text_of_earlier(markers[before[-1]], qi)):
            k = inside[0]  # a lead-in before its own marker
            lead_ins.add(k)
        elif before:
            k = before[-1]
        else:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"question {qi + 1} starts (line {s + 1}) before the sheet's first question marker "
                f"({markers[0].text!r}, line {markers[0].line}): chrome read as a question?")))
            continue
        under.setdefault(k, []).append(qi)
        taken.add(k)
    for k, qis in under.items():
        # a piece with no words of its own (code or maths alone: a snippet, a formula), not a
        # lead-in before a marker of its own (one in its span no later question starts under)
        unmarked = [qi for qi in qis[1:] if _wordless(questions.root[qi]) and not any(
            starts[qi] + 1 < m.line <= ends[qi] and j not in taken for j, m in enumerate(markers))]
        if unmarked:  # the first of them lost the rest of its text (parts, a list) to the others: not lead-ins
            flags.append(Flag(field=f"q{qis[0] + 1}", kind=KIND, reason=(
                f"{'questions' if len(unmarked) > 1 else 'question'} {', '.join(str(q + 1) for q in unmarked)} "
                f"{'start' if len(unmarked) > 1 else 'starts'} under the marker of question "
                f"{qis[0] + 1} ({markers[k].text!r}, line {markers[k].line}): the rest of question {qis[0] + 1} "
                "(its later parts) read as questions of their own?")))
        closed = _closed_lines(questions_md, src) if len(qis) > 1 else set()
        for before, qi in zip(qis, qis[1:]):
            if any(starts[before] < n <= starts[qi] for n in closed):
                continue  # the question before ended on the paragraph the sheet closes each item with
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"questions {qis[0] + 1} and {qi + 1} both start under the marker {markers[k].text!r} "
                f"(line {markers[k].line}): one question read as two?")))
    as_parts = _own_lists(markers, under, lead_ins, owner, questions, src)
    if any(s is not None for s in starts):
        for k, m in enumerate(markers):
            if k in under or k in as_parts:
                continue
            qi = owner(m.line)
            where = f"q{qi + 1}" if qi is not None else f"source:{m.line}"
            into = f"it was read into question {qi + 1}, or lost" if qi is not None else "its text is in no question"
            flags.append(Flag(field=where, kind=KIND, reason=(
                f"the sheet's question marker {m.text!r} (line {m.line}) opens no question of the set: {into}")))
    questioned = [m for k, m in enumerate(markers) if k not in as_parts]
    lost = {n for n, _ in uncovered(questions_md, field_texts(questions))}
    opened = {markers[k].line for k in under}
    for m, why in numbers_doubtful(questioned):
        previous = questioned[questioned.index(m) - 1]
        if m.line in opened and previous.line in opened and not any(previous.line < n < m.line for n in lost):
            continue  # the sheet numbers so, and the reading lost nothing between
        qi = owner(m.line)
        flags.append(Flag(field=f"q{qi + 1}" if qi is not None else f"source:{m.line}", kind=KIND, reason=(
            f"the sheet's question numbering {why} at {m.text!r} (line {m.line}): a question lost or misnumbered?")))
    flags += _first_lead_in(lead_ins, under, starts, lost, src)
    if questioned and len(questioned) != len(questions) and not flags:  # else the flags above name where they differ
        flags.append(Flag(field="set", kind=KIND, reason=(
            f"the sheet has {len(questioned)} question markers and the set {len(questions)} questions")))
    return flags


_ITEM_MARK = re.compile(r"^\(?\d+[.)]\s+")


def _closed_lines(questions_md: str, src: SourceLines) -> set[int]:
    """The 1-based lines of the paragraph the sheet closes each item with (a quiz bank's
    ``Feedback``: :func:`tasks.read.discovery.closing_paragraphs`); empty when it has none."""
    closers = closing_paragraphs(ast(questions_md))
    if not closers:
        return set()
    rx = re.compile(r"^\W*" + re.escape(closers[0]) + r"\W*$", re.I)
    return {n for n, line in enumerate(src.lines, 1) if rx.match(line)}


def _opens_part(m, questions: SheetSet) -> bool:
    """Is marker ``m`` a numbered list item (``1. Find …``) whose text is in a part's content
    (the reading opened a part there)?"""
    lead = _ITEM_MARK.match(m.text)
    if not lead:
        return False
    body = " ".join(m.text[lead.end():].split())[:40]
    return len(body) >= 8 and any(body in " ".join(p.content.split()) for q in questions.root
                                  for p in q.normalised_parts())


def _first_lead_in(lead_ins: set[int], under: dict[int, list[int]], starts: list[int | None], lost: set[int],
                   src: SourceLines) -> list[Flag]:
    """When the reading kept a lead-in paragraph with a later question (it opens before its own
    marker), text in no field just before the first question (no heading between) is most likely
    the first question's lead-in, left out: one flag on question 1."""
    later = sorted(qi for k in lead_ins for qi in under.get(k, [])[:1] if qi > 0)
    first = next((s for s in starts if s is not None), None)
    if not later or first is None or starts[0] is None:
        return []
    run: list[int] = []
    for i in range(first - 1, -1, -1):  # 0-based lines above question 1's text
        if i + 1 in lost:
            run.append(i + 1)
        elif src.written[i].lstrip().startswith("#") or (src.lines[i] and i + 1 not in lost and run):
            break
        elif src.lines[i] and not run:
            break  # a line some field holds sits between: question 1 starts after it
    if not run:
        return []
    where = f"line {run[0]}" if len(run) == 1 else f"lines {min(run)}-{max(run)}"
    return [Flag(field="q1", kind=KIND, reason=(
        f"the text just before question 1 ({where}) is in no field, while the reading kept the "
        f"lead-in paragraph of question {later[0] + 1} with it: question 1's own lead-in left out?"))]


def _span_ends(starts: list[int | None], n_lines: int) -> list[int]:
    """Per question, the 1-based last line before the next question's text starts (the
    document's last line for the last question; a question not found ends where it starts)."""
    ends = []
    for qi in range(len(starts)):
        later = [s for s in starts[qi + 1:] if s is not None]
        ends.append(later[0] if later else n_lines)
    return ends


_CODE_OR_MATHS = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$", re.S)


def _wordless(question) -> bool:
    """Does ``question`` hold no word (two letters) outside code and maths?"""
    texts = [question.main_text] + [t for p in question.parts for t in (p.content, *p.options)]
    return not re.search(r"[^\W\d_]{2,}", _CODE_OR_MATHS.sub(" ", "\n".join(texts)))


def _joined(question) -> str:
    """A question's texts as :class:`SourceLines` reads lines (markers cut, whitespace folded)."""
    texts = [question.main_text] + [t for p in question.parts for t in (p.content, *p.options)]
    return "\n".join(SourceLines("\n".join(texts)).lines)


def _continues_past(question, src: SourceLines, line: int, end: int) -> bool:
    """Does ``question`` hold the sheet's text from marker ``line`` on (its first words after
    the marker, before the 1-based ``end`` of the question's span)?"""
    joined = _joined(question)
    for i in range(line - 1, min(end, len(src.lines))):
        if src.lines[i] and not src.written[i].lstrip().startswith("#"):
            # a line cut into pieces (inline parts `(a) … ? (b) …`): its first piece will do
            head = src.heads[i]
            return src.lines[i][:80] in joined or (len(head) >= 20 and head != src.lines[i] and head[:80] in joined)
    return False


def _own_lists(markers, under: dict[int, list[int]], lead_ins: set[int], owner, questions: SheetSet,
               src: SourceLines) -> set[int]:
    """The numbered-list markers that are a question's own list, not questions: items opening
    no question (or the one a lead-in paragraph opened the question before), inside the text
    of the question they sit in, in a run of two or more starting at ``1`` inside that question (its steps or
    parts; a question's next number read into it starts no run)."""
    own: set[int] = set()
    run: list[int] = []
    run_owner = None
    for k, m in enumerate(markers + [None]):
        qi = owner(m.line) if m is not None else None
        inside = (m is not None and (k not in under or k in lead_ins) and m.text[:1].isdigit() and qi is not None
                  and bool(src.lines[m.line - 1]) and src.lines[m.line - 1][:80] in _joined(questions.root[qi]))
        if inside and run and run_owner == qi and k not in under:
            run.append(k)
            continue
        if len(run) >= 2:
            own.update(run)
        run, run_owner = ([k], qi) if inside and m.number == "1" else ([], None)
    return own


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


_NUMBER_IN_ITEM = re.compile(r"^\s*(\d+)[.)]\s+\\?\(\d{1,2}\\?\)(?=\s|$)")


def item_label(line: str) -> str | None:
    """The list item's own number when a parenthesised number follows its marker
    (``1.  \\(4\\) Write …``: the sheet's points; the list labels the item), else ``None``."""
    m = _NUMBER_IN_ITEM.match(line)
    return m.group(1) if m else None


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
                label = item_label(src.written[i]) or src.label(i)
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
    document (both numbered), unless a flag in ``known`` already names that solution or the
    number joins a question's number and a part's label (``1a``: :mod:`tasks.read.joined_labels`)."""
    if not solutions_md:
        return []
    q_numbers = {m.number for m in question_markers(questions_md)}
    s_markers = question_markers(solutions_md, solutions=True)
    if not q_numbers or not s_markers:
        return []
    said = " ".join(f.reason for f in known if f.field == "solutions")
    return [Flag(field=f"solutions:{m.line}", kind=KIND, a=m.text, reason=(
                f"solution {m.number} (line {m.line} of the solutions) matches no question number of the sheet"))
            for m in s_markers if m.number not in q_numbers and f"solution {m.number} " not in said
            and not names_a_part(m.number, q_numbers)]  # "Problem 1a": question 1's part a
