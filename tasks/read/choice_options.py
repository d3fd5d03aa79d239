"""A stem that asks for one choice among the short items that follow: the items are the options
of one multiple-choice part, not parts.

``Choose *one* of the following models, and explain your choice.`` over five listed formulas asks
for one answer among them; a reader that takes a list under a stem for parts reads five parts a
student would answer each. When the stem's last paragraph says to choose (select, pick, circle,
tick) one of the following things (:func:`chooses_one`), and every part's first paragraph is one
short line with no display (an option's size), the parts are the options of one part with no
text of its own (:func:`as_options`). What the sheet prints after the last item (its first
paragraph is the option; the rest carries the sheet on: output, context for the next question)
leads into the next question, or stays the part's text when none follows.

The things to choose among decide it: ``choose one of the following problems`` (questions,
exercises, tasks, topics, projects) is a choice of questions, whose items stay what they are read
as (:data:`QUESTION_NOUNS`).
"""

from __future__ import annotations

import re

from schemas.sheet import Part, Question, SheetSet
from tasks.read.route_b import Numbers

_CHOOSE_ONE = re.compile(
    r"\b(?:choose|select|pick|circle|tick)\b[^.?!\n]{0,30}?\b(?:one|the (?:best|correct|right))\b[^.?!\n]{0,60}?"
    r"\bfollowing\b(?P<what>[^.?!:;,\n]{0,60})", re.I)
"""A stem asking for one choice among the items that follow, and the words naming them."""

QUESTION_NOUNS = re.compile(
    r"\b(?:problems?|questions?|exercises?|tasks?|topics?|projects?|essays?|prompts?|assignments?|"
    r"exercices?|aufgaben|ejercicios?|problemas?)\b", re.I)
"""Things to choose among that are questions a student answers (a choice of questions)."""

MAX_WORDS = 50
"""Words at most in an option's line (a statement to choose among may be a long sentence)."""

_DISPLAY = re.compile(r"\$\$|\\\[|```|~~~")
_BREAK = re.compile(r"\n\s*\n")


def chooses_one(stem: str) -> bool:
    """Does the last paragraph of ``stem`` ask for one choice among the following things, the
    things not questions (:data:`QUESTION_NOUNS`)? Emphasis is ignored (``Choose *one* of``)."""
    paragraphs = [p for p in _BREAK.split(stem.replace("*", "").replace("_", " ")) if p.strip()]
    m = _CHOOSE_ONE.search(paragraphs[-1]) if paragraphs else None
    return bool(m) and not QUESTION_NOUNS.search(m.group("what"))


def _option(content: str) -> str | None:
    """The option a part's first paragraph is (one short line, no display), else ``None``."""
    first = _BREAK.split(content.strip())[0].strip()
    if not first or "\n" in first or len(first.split()) > MAX_WORDS or _DISPLAY.search(first):
        return None
    return first


def as_options(questions: SheetSet, numbers: Numbers) -> tuple[SheetSet, Numbers]:
    """``questions`` (and their ``numbers``, one ``(number, part labels)`` each, or ``[]``) with
    each question that asks for one choice among its parts (module docstring: two parts or more,
    none with options, an answer or a worked solution) read as one part holding them as options.
    Unchanged elsewhere."""
    qs = list(questions.root)
    nums = list(numbers)
    for i, q in enumerate(qs):
        parts = q.parts
        if len(parts) < 2 or any(p.options or p.answer.strip() or p.worked_solution.strip() for p in parts):
            continue
        if not chooses_one(q.main_text):
            continue
        options = [_option(p.content) for p in parts]
        if not all(options):
            continue
        rest = parts[-1].content.strip()[len(options[-1]):].strip()
        content = ""
        if rest and i + 1 < len(qs):
            after = qs[i + 1]
            qs[i + 1] = after.model_copy(update={"main_text": rest + "\n\n" + after.main_text.strip()
                                                 if after.main_text.strip() else rest})
        else:
            content = rest
        qs[i] = q.model_copy(update={"parts": [Part(content=content, options=options)]})
        if len(nums) == len(qs):
            nums[i] = (nums[i][0], [""])
    return SheetSet(qs), nums
