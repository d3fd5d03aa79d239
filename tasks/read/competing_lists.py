"""Competing numbered lists: which of two runs of questions, each numbered from 1, holds the
sheet's questions, and which is chrome.

An exam's cover page numbers its rules (``1. You have 50 minutes …``, ``2. No calculators …``)
and the questions follow in a list of their own that numbers from 1 again; a homework may end
with numbered submission instructions. A reader that opens questions at numbered items reads
both lists as questions. Which list asks is written in its items: a question asks (``?``),
carries points (``(3 pts)``), holds maths, has parts, is answered by the solutions, or at least
orders a task (``Explain``, ``Find``); a rule does none of these, and speaks to the reader
(``you``, ``your``: what the reader may, must or has). Each run of the chosen reading's
questions that numbers from 1 is weighed by that evidence (:func:`evidence`, its mean over the
run: :func:`run_evidence`); a run at either end of the sheet that shows almost none of it (at
most :data:`CHROME_AT`) and speaks to the reader in half its items or more, while another run
shows it in most questions (at least :data:`QUESTIONS_AT`), is chrome and leaves the reading
(:func:`without_instruction_runs`). A plain run that speaks to no one (``Drain the pond.``,
``Count the snails.``: steps, or tasks) stays, and the audit's doubts about it stand
(:mod:`tasks.settle.rule_lists`, :mod:`tasks.settle.key_doubts`).
"""

from __future__ import annotations

import re

from schemas.sheet import Question, SheetSet
from tasks.read.layout_score import leading_int
from tasks.read.route_b import Numbers
from tasks.settle.rule_lists import asks

CHROME_AT = 0.2
"""A run whose mean evidence of asking is at most this is no list of questions (a rule list's
items ask nothing; one word such as ``find`` in ``make your answers easy to find`` may slip in)."""

QUESTIONS_AT = 0.6
"""The run the questions are in shows evidence of asking at least this on average."""


_YOU = re.compile(r"\byou(?:rs?|rself)?\b", re.I)


def speaks_to_reader(questions: list[Question]) -> bool:
    """Do half or more of ``questions`` say ``you`` / ``your`` (a rule's voice)?"""
    return 2 * sum(bool(_YOU.search(q.main_text + " " + " ".join(p.content for p in q.parts)))
                   for q in questions) >= len(questions)


def runs(numbers: Numbers) -> list[range]:
    """The runs of a reading's questions (``numbers``: one ``(number, part labels)`` each) that
    number from 1: a new run opens at every question numbered 1 after the first question
    (unnumbered questions stay in the run they are in)."""
    starts = [0] + [i for i, (n, _) in enumerate(numbers) if i and leading_int(n) == 1]
    return [range(a, b) for a, b in zip(starts, starts[1:] + [len(numbers)])]


def evidence(question: Question) -> float:
    """How plainly ``question`` is a question: 1.0 when it asks (``?``), carries points, holds
    maths, has two parts or more, options, or an answer or worked solution; 0.5 when it only
    orders a task (an asking word: ``Explain``, ``Find``); 0.0 when it does none of these."""
    parts = question.parts
    if len(parts) >= 2 or any(p.options or p.answer.strip() or p.worked_solution.strip() for p in parts):
        return 1.0
    text = "\n".join([question.main_text] + [p.content for p in parts])
    return asks(text) / 2


def run_evidence(questions: list[Question], numbers: Numbers, solution_numbers: list[str] | None) -> float:
    """The mean :func:`evidence` of a run's questions; with the solutions' numbers, a run whose
    numbers are exactly the numbers the solutions answer is a list of questions (1.0)."""
    if solution_numbers:
        mine = {leading_int(n) for n, _ in numbers}
        if None not in mine and mine == {leading_int(n) for n in solution_numbers} - {None}:
            return 1.0
    return sum(evidence(q) for q in questions) / len(questions)


def without_instruction_runs(questions: SheetSet, numbers: Numbers,
                             solution_numbers: list[str] | None = None) -> tuple[SheetSet, Numbers, list[range]]:
    """``questions`` and their ``numbers`` without each run numbered from 1 (:func:`runs`) that
    is no list of questions: two questions or more, first or last in the sheet, mean evidence at
    most :data:`CHROME_AT`, speaking to the reader (:func:`speaks_to_reader`), while another run of two questions or more shows at least
    :data:`QUESTIONS_AT` (module docstring). Also the runs left out (0-based ranges of the
    reading given). Unchanged when ``numbers`` is not one per question or there is one run."""
    if len(numbers) != len(questions) or not numbers:
        return questions, numbers, []
    spans = runs(numbers)
    if len(spans) < 2:
        return questions, numbers, []
    qs = questions.root
    weights = [run_evidence(qs[r.start:r.stop], numbers[r.start:r.stop], solution_numbers) for r in spans]
    dropped = []
    for k, r in enumerate(spans):
        if k not in (0, len(spans) - 1) or len(r) < 2 or weights[k] > CHROME_AT:
            continue
        if not speaks_to_reader(qs[r.start:r.stop]):
            continue
        if any(j != k and len(o) >= 2 and weights[j] >= QUESTIONS_AT for j, o in enumerate(spans)):
            dropped.append(r)
    if not dropped:
        return questions, numbers, []
    out = {i for r in dropped for i in r}
    keep = [i for i in range(len(qs)) if i not in out]
    return SheetSet([qs[i] for i in keep]), [numbers[i] for i in keep], dropped
