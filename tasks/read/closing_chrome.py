"""A sheet's closing chrome: paragraphs that end the last question and repeat, word for word,
what the sheet sets before its first question.

Course pages and notebooks often open and close with the same navigation bar (``< Previous |
Contents | Next >``, an "Open in Colab" badge): at the top it is chrome before the first question,
at the bottom the reader takes it for the last question's closing text. A paragraph the sheet
already printed before any question is no text of that question; cut from its end.

A sheet's back matter is chrome too: a last section headed ``References``, ``Bibliography``,
``Further reading`` (:data:`BACK_MATTER`) that a reading at the sheet's headings takes for a last
question asks nothing; it leaves the reading (:func:`without_back_matter`).
"""

from __future__ import annotations

import re

from schemas.sheet import SheetSet

_BREAK = re.compile(r"\n\s*\n")

BACK_MATTER = re.compile(
    r"(?:\d+(?:\.\d+)*\.?\s+)?(?:references?|bibliography|literature|further reading|reading list|sources|works cited|"
    r"citations|acknowledge?ments|literatur(?:verzeichnis)?|r[ée]f[ée]rences|bibliographie|referencias|bibliograf[íi]a)"
    r"\s*:?", re.I)
"""A heading naming a sheet's back matter (a number before it allowed: ``5 References``)."""


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _BREAK.split(text) if p.strip()]


def _opening(questions: SheetSet) -> str:
    q = questions.root[0]
    for text in [q.main_text] + [t for p in q.parts for t in (p.content, p.answer, p.worked_solution)]:
        if text.strip():
            return _paragraphs(text)[0]
    return ""


def without_closing_chrome(questions: SheetSet, markdown: str) -> SheetSet:
    """``questions`` with the paragraphs that close the last question's last text (its main text,
    or its last part's content, answer or worked solution: the last that holds text; a solutions
    document's reading too) cut when each is also a paragraph of
    ``markdown`` before the first question's opening paragraph (module docstring). Unchanged
    when the first question's opening is not found or nothing repeats."""
    if not questions.root:
        return questions
    opening = _opening(questions)
    at = markdown.find(opening) if opening else -1
    if at <= 0:
        return questions
    before = set(_paragraphs(markdown[:at]))
    last = questions.root[-1]
    fields = [("main_text", None)] + [(name, i) for i in range(len(last.parts))
                                      for name in ("content", "answer", "worked_solution")]
    for name, i in reversed(fields):
        text = getattr(last if i is None else last.parts[i], name)
        if not text.strip():
            continue
        paras = _paragraphs(text)
        keep = len(paras)
        while keep > 1 and paras[keep - 1] in before:
            keep -= 1
        if keep == len(paras):
            return questions
        cut = text
        for p in reversed(paras[keep:]):
            cut = cut[:cut.rstrip().rfind(p)].rstrip()
        if i is None:
            last = last.model_copy(update={"main_text": cut})
        else:
            parts = list(last.parts)
            parts[i] = parts[i].model_copy(update={name: cut})
            last = last.model_copy(update={"parts": parts})
        return SheetSet(questions.root[:-1] + [last])
    return questions


def without_back_matter(questions: SheetSet, numbers: list, solutions: bool = False) -> tuple[SheetSet, list]:
    """``questions`` and their ``numbers`` (one each, or ``[]``) without a last question that is
    the sheet's back matter: titled by a heading that names it whole (:data:`BACK_MATTER`), with
    no part of its own text, no options, answer or worked solution (``solutions``: a solutions
    document's reading, where every text is a worked solution: no part text or options).
    Unchanged otherwise (and when it is the only question)."""
    if len(questions.root) < 2:
        return questions, numbers
    last = questions.root[-1]
    if not BACK_MATTER.fullmatch(last.title.strip().strip("*_ ")):
        return questions, numbers
    if any(p.content.strip() or p.options or (not solutions and (p.answer.strip() or p.worked_solution.strip()))
           for p in last.parts):
        return questions, numbers
    return SheetSet(questions.root[:-1]), numbers[:-1] if len(numbers) == len(questions.root) else numbers
