"""The audit's doubt on a solution that restates its question (:mod:`tasks.settle.audit`): an
answer or worked solution whose first paragraph (a code block whole) opens with the question's or
the part's own words, a restatement the exact cut missed (:mod:`tasks.read.restated`); a
``structure`` flag on that field."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet, field_key
from tasks.read.restated import paragraphs
from tasks.settle.reading_doubts import KEY, KIND

_FOLD = re.compile(r"[\W_]+")
_IMAGE_ONLY = re.compile(r"^\s*!\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?\s*$")
"""A paragraph that is a picture alone (as :mod:`tasks.settle.reading_doubts` reads one)."""


def _fold(text: str) -> str:
    return _FOLD.sub("", text.lower())


def restated_flags(questions: SheetSet) -> list[Flag]:
    """An answer or worked solution opening with its question's or part's own words.

    A part with a prompt of its own (:data:`KEY` folded characters or more) is doubted only when
    its solution opens with that prompt's opening (the truth scorer's restated question), opens
    with a paragraph its prompt holds whole, or holds no words but the question's (a placeholder
    copied): a solution opening with the question's lead-in (a solutions file restating each
    question's stem, then answering part by part) or echoing the prompt inside a sentence of its
    own answer (``What is X?`` → ``X is …``) is the answer, not a restatement (issue 20: such
    doubts fell on parts read right). A picture alone opening the solution (the key's figure) is
    no words: the paragraph after it is the opening."""
    flags = []
    for qi, q in enumerate(questions.root):
        asked = _fold(q.main_text)
        for pi, p in enumerate(q.normalised_parts()):
            prompt = _fold(p.content)
            own = asked + prompt
            for name in ("answer", "worked_solution"):
                # a multiple-choice part's final answer is its options marked correct: their words
                # are the sheet's (a matrix's columns named in the lead-in), never a restatement
                if name == "answer" and p.options and all(
                        x.strip() in p.options for x in paragraphs(p.answer)):
                    continue
                # a code block is one paragraph: a filled-in cell opening with the stub's comment
                # (`# Write answer here`) is the answer, not the placeholder copied
                paras = [x for x in paragraphs(getattr(p, name)) if not _IMAGE_ONLY.match(x)]
                first = next(iter(paras), "")
                # (a code block copies the question's only when the question holds all of it)
                key = _fold(first) if first.lstrip().startswith(("```", "~~~")) else _fold(first)[:KEY]
                # an expression the question asks to work out, copied and carried on to its value
                # (`$…expression… = \dfrac{1+x}{x}$`), is worked, not restated
                worked = first.lstrip().startswith("$") and "=" in first and _fold(first) not in own
                if len(key) < 20 or key not in own or worked:
                    continue
                if len(prompt) >= 20 and not (
                        _fold("\n\n".join(paras)).startswith(prompt[:KEY]) or _fold(first) in prompt
                        or all(_fold(x) in own for x in paras)):
                    continue
                flags.append(Flag(field=field_key(qi, name, pi), kind=KIND, a=getattr(p, name), reason=(
                    f"this solution opens with question {qi + 1}'s own words ({first.strip()[:60]!r}): the "
                    "question restated, or a placeholder copied, rather than its solution?")))
    return flags
