"""Route B: a pandoc Lua filter reads the set from the markdown.

The filter (a model-written one, or one of the library filters in
``filters/library/``) runs in the sandbox (:mod:`tasks.read.sandbox`) once over the questions
document (role ``questions``) and, when there is one, once over the solutions document
(role ``solutions``). The two readings are merged by question number and part label when
both documents number them (a library filter that reads numbers says so: it runs a second
time with ``SHEET2LAMBDA_NUMBERING = true`` and returns the numbers instead of the fields),
else by position, with a flag when the counts differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from schemas.flags import Flag
from schemas.sheet import Part, Question, SheetSet
from tasks.settle.coverage import coverage, field_texts, is_timing, restated, uncovered
from tasks.errors import FilterError
from tasks.read.joined_labels import split_joined
from tasks.read.run_on import put_correct, split_run_on
from tasks.read.sandbox import FILTERS_DIR, run_filter

LIBRARY_DIR = FILTERS_DIR / "library"


def library_filters() -> dict[str, str]:
    """The library filters: file stem (``mathpix``, ``latex``) → Lua source, by name."""
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(LIBRARY_DIR.glob("*.lua"))}


def merge_by_position(questions: SheetSet, solutions: SheetSet | None) -> SheetSet:
    """The questions reading with the solutions reading's answers merged in by position.

    Part j of question i gets the ``answer`` and ``worked_solution`` of part j of
    solution question i (each only when the solution's field is not empty). A question
    with fewer parts than its solution gets parts with empty content appended (so a
    question with no parts gets one part with empty content); a solution question beyond
    the last question is appended as a question with an empty title and main text.
    Returns a new :class:`SheetSet`; neither input is changed. ``solutions=None`` gives a
    copy of ``questions``.
    """
    out = questions.model_copy(deep=True)
    if solutions is None:
        return out
    for i, sq in enumerate(solutions.root):
        if i >= len(out.root):
            out.root.append(Question())
        q = out.root[i]
        for j, sp in enumerate(sq.parts):
            if not (sp.answer or sp.worked_solution):
                continue
            while j >= len(q.parts):
                q.parts.append(Part())
            if sp.answer:
                q.parts[j].answer = sp.answer
            if sp.worked_solution:
                q.parts[j].worked_solution = sp.worked_solution
            put_correct(q.parts[j], sp)
    return out


Numbers = list[tuple[str, list[str]]]
"""A document's numbering: per question, its number as printed ("" when none) and its
parts' labels ("" when none), in reading order."""

NUMBERING_SWITCH = "SHEET2LAMBDA_NUMBERING"
"""The global a library filter reads to return the numbering instead of the fields."""


@dataclass
class Pairing:
    """How the solutions reading was paired with the questions reading.

    ``how`` is ``number`` (by question number and part label), ``position`` or ``none``
    (no solutions document); ``flags`` are for a person: solution numbers that match no
    question, or, paired by position, counts that differ (``structural``); solution parts
    whose labels match no part of their question (``structure``, :func:`merge_by_number`).
    """

    how: str = "none"
    flags: list[Flag] = field(default_factory=list)
    layout: str = ""
    """The layout the questions were read in when it was inferred (:mod:`tasks.read.layout`)."""


def reads_numbers(filter_source: str) -> bool:
    """True when the filter can return the numbering (it reads :data:`NUMBERING_SWITCH`)."""
    return NUMBERING_SWITCH in filter_source


def numbering(filter_source: str, markdown: str, role: str, **limits) -> Numbers:
    """The numbering of a document as the filter reads it (see :data:`Numbers`): the filter
    runs with ``SHEET2LAMBDA_NUMBERING = true`` set before it, returning each question's
    number as its title and each part's label as its content. Raises :class:`FilterError`."""
    reading = run_filter(f"{NUMBERING_SWITCH} = true\n" + filter_source, markdown, role, **limits)
    return [(q.title.strip(), [p.content.strip() for p in q.parts]) for q in reading.root]


def _numbered(numbers: Numbers | None) -> bool:
    if not numbers:
        return False
    seen = [n for n, _ in numbers]
    return all(seen) and len(set(seen)) == len(seen)


def _mostly_named(s_numbers: Numbers | None, q_numbers: Numbers) -> bool:
    """Do most of the solutions (more than half) carry a number that names a question? Then
    they pair by number even when some have none or share one (a preamble section ``Task 1``
    before ``Question 1``): by position, every answer after such a section would sit one
    question off."""
    if not s_numbers:
        return False
    names = {n for n, _ in q_numbers}
    return sum(1 for n, _ in s_numbers if n and n in names) * 2 > len(s_numbers)


def pairs_by_number(q_numbers: Numbers | None, s_numbers: Numbers | None) -> bool:
    """Do the two numberings pair by number (:func:`merge_solutions`): every question numbered,
    no number twice, and the solutions numbered so too or mostly naming a question."""
    return _numbered(q_numbers) and (_numbered(s_numbers) or _mostly_named(s_numbers, q_numbers))


def _put(part: Part, solution: Part) -> None:
    if solution.answer:
        part.answer = solution.answer
    if solution.worked_solution:
        part.worked_solution = solution.worked_solution
    put_correct(part, solution)


def _joined(parts: list[Part]) -> Part:
    """One part holding the answers and worked solutions of ``parts``, in order."""
    return Part(answer="\n\n".join(p.answer for p in parts if p.answer),
                worked_solution="\n\n".join(p.worked_solution for p in parts if p.worked_solution))


def _labelled(labels: list[str], parts: list[Part]) -> bool:
    """True when a numbering's labels cover the reading's parts, each with a label."""
    return bool(labels) and len(labels) == len(parts) and all(labels)


_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,2}[.)]|\(?[a-z]\))[ \t]+\S", re.M)
"""A list item opening a line of a question's text (a bullet, ``1.``, ``a)``, ``(b)``)."""


def _unpaired_flag(qi: int, number: str, label: str, q_labels: list[str]) -> Flag:
    have = ", ".join(f"({lab})" for lab in q_labels if lab)
    return Flag(field=f"q{qi + 1}", kind="structure", reason=(
        f"solution {number} has a part ({label}) but question {number} has only {have}: its answer is left "
        "out, not put on another part by position; a person must place it"))


def whole_answer(solution: Question, s_labels: list[str], question: Question) -> bool:
    """Is ``solution`` one answer naming no part, for a ``question`` of several parts? Then
    it sits on the first part, and which of it answers which part is a person's to say."""
    answered = [p for p in solution.parts if p.answer or p.worked_solution]
    return len(solution.parts) == 1 and len(answered) == 1 and not any(s_labels) and len(question.parts) > 1


def _whole_flag(qi: int, number: str, parts: int) -> Flag:
    return Flag(field=f"q{qi + 1}", kind="structure", reason=(
        f"the solution of question {number or qi + 1} names none of its {parts} parts: it was put whole on the "
        "first part, not split by guess; a person must say which of it answers which part"))


_TRAILING_ITEM = re.compile(r"^(?:[-*+]|\d{1,2}[.)])[ \t]+(?=\S)")


def _trailing_items(text: str) -> tuple[str, list[str]] | None:
    """A main text that ends in a list (``- …`` or ``1. …`` items at the margin, each item's
    lines after its marker running to the next: a display equation under an item is its own):
    ``(the text before the list, [each item's text without its marker])``; ``None`` when the
    text holds no such list of two items or more."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if _TRAILING_ITEM.match(ln)]
    if len(starts) < 2:
        return None
    items = []
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        items.append("\n".join([_TRAILING_ITEM.sub("", lines[i], count=1), *lines[i + 1:end]]).strip())
    return "\n".join(lines[:starts[0]]).strip(), items


def _unanswered_items(qi: int, solution: Question) -> list[Flag]:
    """A ``structure`` flag on question ``qi`` (0-based) when some of the list items read as
    its parts by the solutions' numbering get no solution of their own."""
    empty = [str(j + 1) for j, p in enumerate(solution.parts) if not (p.answer or p.worked_solution)]
    if not empty:
        return []
    return [Flag(field=f"q{qi + 1}", kind="structure", reason=(
        f"question {qi + 1}'s list items are read as its parts because its solution answers them by number, "
        f"but parts {', '.join(empty)} get no solution of their own: another part's solution may hold theirs"))]


def merge_by_number(
    questions: SheetSet, q_numbers: Numbers, solutions: SheetSet, s_numbers: Numbers
) -> tuple[SheetSet, list[Flag]]:
    """The questions reading with each solution merged into the question of the same
    number ("Solution 4" into question 4 even when solution 3 is missing).

    ``q_numbers`` / ``s_numbers`` are the readings' numberings (:func:`numbering`), one
    entry per question in the same order. Inside a question, parts are matched by label
    when every solution part has a label the question also has. When the solution's pieces
    are all labelled and the question labels its parts too but some labels differ (the sheet's
    (a), (b) against the solutions' (a), (c)), the pieces whose labels match are paired by
    label and each other piece with an answer is left out and flagged (kind ``structure``,
    field ``q<n>``) rather than put on a part by position, nor on a content-less part
    appended for it. Else (unlabelled solutions, or labels of two systems with none in
    common: the sheet's (1), (2), the solutions' (a), (b)) by position (a question with fewer parts
    gets parts with empty content appended; a question with no parts at all takes a
    solution of several parts whole, as its one part: restated sub-items in the solution
    make no parts the sheet does not have; when two or more of those pieces answer and the
    question's text holds a list of as many items, the question is flagged ``structure``: its
    parts may be left in its text). A solution whose number names no question is
    left out and flagged (``structural``, field ``solutions``). One answer naming no part, for
    a question of several, goes whole on the first part with a ``structure`` flag on the
    question (:func:`whole_answer`): which of it answers which part is a person's to say.
    Returns the merged copy and the flags; the inputs are not changed.
    """
    out = questions.model_copy(deep=True)
    flags: list[Flag] = []
    index = {n: i for i, (n, _) in enumerate(q_numbers)}
    for si, sq in enumerate(solutions.root):
        number = s_numbers[si][0] if si < len(s_numbers) else ""
        qi = index.get(number)
        if qi is None or qi >= len(out.root):
            flags.append(Flag(field="solutions", kind="structural",
                              reason=f"solution {number or si + 1} matches no question of the sheet; left out"))
            continue
        q = out.root[qi]
        q_labels = q_numbers[qi][1]
        s_labels = s_numbers[si][1] if si < len(s_numbers) else []
        items = _trailing_items(q.main_text) if not q.parts and len(sq.parts) > 1 else []
        if items and len(items[1]) == len(sq.parts) and _labelled(s_labels, sq.parts):
            # the solutions answer the question's list items one by one: they are its parts
            q.main_text, q.parts = items[0], [Part(content=c) for c in items[1]]
            s_labels = q_labels = []
            flags += _unanswered_items(qi, sq)
        elif not q.parts and len(sq.parts) > 1:
            answered = sum(1 for sp in sq.parts if sp.answer or sp.worked_solution)
            if answered > 1 and len(_ITEM.findall(q.main_text)) == answered:
                flags.append(Flag(field=f"q{qi + 1}", kind="structure", reason=(
                    f"solution {number} answers {answered} pieces one by one, and question {number}'s text holds a "
                    f"list of {answered} items, read as no parts: its parts may be left in its text (the pieces are "
                    "joined as one solution)")))
            sq = Question(parts=[_joined(sq.parts)])
            s_labels = []
        s_ok = _labelled(s_labels, sq.parts)
        all_match = s_ok and all(lab in q_labels for lab in s_labels)
        # both label their parts (the sheet may have an unlabelled part before its (a)) but differ
        # ... with some label in common: labels of another system altogether (the sheet's (1),
        # (2) against the solutions' (a), (b)) say nothing about which is which, so position
        some_match = s_ok and any(lab in q_labels for lab in s_labels if lab)
        differ = some_match and not all_match and len(q_labels) == len(q.parts) and any(q_labels)
        by_label = all_match or differ
        if whole_answer(sq, s_labels, q):
            flags.append(_whole_flag(qi, number, len(q.parts)))
        for j, sp in enumerate(sq.parts):
            if not (sp.answer or sp.worked_solution):
                continue
            if by_label and s_labels[j] not in q_labels:
                flags.append(_unpaired_flag(qi, number, s_labels[j], q_labels))
                continue
            k = q_labels.index(s_labels[j]) if by_label else j
            while k >= len(q.parts):
                q.parts.append(Part())
            _put(q.parts[k], sp)
    return out, flags


def merge_solutions(
    questions: SheetSet,
    solutions: SheetSet | None,
    q_numbers: Numbers | None = None,
    s_numbers: Numbers | None = None,
) -> tuple[SheetSet, Pairing]:
    """The questions reading with the solutions merged in, and how they were paired.

    Solutions numbered ``1a``, ``1b`` are gathered into their question first (:mod:`tasks.read.joined_labels`).
    By number (:func:`merge_by_number`) when both numberings are given, every question
    has a number, no number twice, and so has every solution or most solutions name a
    question by number (:func:`_mostly_named`); else by position
    (:func:`merge_by_position`), flagging (``structural``, on question 1, where the pairing
    starts) a count of solutions that differs from the count of questions; then a question's
    solution read into the question before it is given back (:func:`tasks.read.run_on.split_run_on`).
    ``solutions=None`` gives a copy and ``Pairing("none")``.
    """
    if solutions is None:
        return questions.model_copy(deep=True), Pairing()
    if q_numbers and s_numbers:  # "Problem 1a", "Problem 1b": question 1's parts (tasks.read.joined_labels)
        solutions, s_numbers = split_joined(solutions, s_numbers, q_numbers)
    if pairs_by_number(q_numbers, s_numbers):
        merged, flags = merge_by_number(questions, q_numbers, solutions, s_numbers)
        return split_run_on(merged), Pairing("number", flags)
    flags = []
    if len(solutions) != len(questions):
        flags.append(Flag(
            field="q1", kind="structural",
            reason=(f"the solutions do not number their questions and hold {len(solutions)} where the sheet has "
                    f"{len(questions)}: paired by position from question 1 on, so answers may sit on the wrong "
                    "question: check each question's solution against the solutions"),
        ))
    flags += [_whole_flag(i, "", len(questions.root[i].parts)) for i, sq in enumerate(solutions.root)
              if i < len(questions.root) and whole_answer(sq, [], questions.root[i])]
    return split_run_on(merge_by_position(questions, solutions)), Pairing("position", flags)


def read_and_pair(
    filter_source: str,
    questions_md: str,
    solutions_md: str | None,
    *,
    timeout: float = 20.0,
    memory_bytes: int = 1 << 30,
    name: str = "filter",
    patient: bool = False,
) -> tuple[SheetSet, Pairing]:
    """Route B's reading of a sheet and how its solutions were paired: ``filter_source``
    over ``questions_md`` (role ``questions``) and, when given, over ``solutions_md`` (role
    ``solutions``), merged with :func:`merge_solutions` (by number when the filter
    :func:`reads_numbers` and both documents number their questions).

    ``timeout`` (seconds) and ``memory_bytes`` bound each filter run (``patient``: a run past
    the limit runs once more with a longer one, for the library's filters). Raises
    :class:`FilterError` when a run fails (see :func:`tasks.read.sandbox.run_filter`).
    """
    limits = dict(timeout=timeout, memory_bytes=memory_bytes, name=name, patient=patient)
    questions = run_filter(filter_source, questions_md, "questions", **limits)
    if solutions_md is None:
        return questions, Pairing()
    solutions = run_filter(filter_source, solutions_md, "solutions", **limits)
    q_numbers = s_numbers = None
    if reads_numbers(filter_source):
        q_numbers = numbering(filter_source, questions_md, "questions", **limits)
        s_numbers = numbering(filter_source, solutions_md, "solutions", **limits)
    return merge_solutions(questions, solutions, q_numbers, s_numbers)


_TASK_BOX_COPIED = re.compile(r"^\s*\[[ xX]?\]\s")


def chrome_quoted(texts: list[str]) -> int:
    """How many lines of ``texts`` are timing or star lines, ``Generated:`` stamps, or start
    with a task box (``[x] option``: the sheet's mark of the correct option, which a student
    would be shown): chrome a reading should have left out."""
    return sum(
        1
        for text in texts
        for line in text.splitlines()
        if line.strip() and (is_timing(line) or line.strip().startswith("Generated:") or _TASK_BOX_COPIED.match(line))
    )


def score_reading(markdown: str, reading: SheetSet) -> float:
    """How well a reading accounts for ``markdown``: its
    :func:`tasks.settle.coverage.coverage` (which cuts the markers a reader drops, such as a
    task box or an HTML tag, before comparing: :func:`tasks.settle.coverage.markers_removed`)
    less, per counted line, the chrome lines it copied (:func:`chrome_quoted`). A reading
    that copies timing lines into its fields has not understood the layout."""
    texts = field_texts(reading)
    counted = max(1, sum(1 for line in markdown.splitlines() if line.strip()))
    return coverage(markdown, texts) - chrome_quoted(texts) / counted


def score_solutions(solutions_md: str, reading: SheetSet, questions_md: str) -> float:
    """How well a reading of the solutions document accounts for its solutions: the
    :func:`score_reading` of ``solutions_md`` with the lines that restate the questions
    document (:func:`tasks.settle.coverage.restated`) left out, less, per counted line,
    the restated lines it copied into its fields. A restated question is no part of an
    answer: a reader that copies it there has misread the layout, and one that drops it
    loses nothing."""
    again = restated(solutions_md, questions_md)
    if not again:
        return score_reading(solutions_md, reading)
    numbers = {n for n, _ in again}
    lines = solutions_md.splitlines()
    kept = "\n".join("" if i in numbers else line for i, line in enumerate(lines, start=1))
    missed = {n for n, _ in uncovered(solutions_md, field_texts(reading))}
    copied = len(numbers - missed)
    counted = max(1, sum(1 for line in lines if line.strip()))
    return score_reading(kept, reading) - copied / counted
