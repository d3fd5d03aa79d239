"""Sections a sheet names as tasks (a term of :func:`tasks.read.layout_score.score`, and a reason
for :func:`tasks.read.layout.choose` to weigh every reading).

A sheet may be cut into a few unnumbered sections whose headings all name a task — ``# Project
task`` then ``# Questions``, ``## Übungsaufgaben`` then ``## Hausaufgaben`` — with a task written
out as paragraphs in one section and a numbered list of tasks in another. A reading at the
numbered items alone leaves the first section's text in no field (it looks like the sheet's head:
title and instructions), though its heading says it is a task. When the reader's own reading
leaves the text of such a section unread, the readings are weighed again, and one loses in
proportion to the named sections it opens no question at (its title the heading's words).

Only a heading level holding two or more headings, none numbered (numbered ones are markers
read elsewhere), every one naming a task by a word of :data:`TASK_WORDS` (a word, its plural,
or the end of a compound), counts: a sheet whose sections are ``# Instructions`` and
``# Problems`` has a head, not two tasks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas.sheet import SheetSet
from tasks.settle.coverage import field_texts

TASK_WORDS = ("question", "problem", "exercise", "task", "assignment",  # English
              "exercice", "probleme", "tache", "devoir",  # French (accents folded)
              "aufgabe", "ubung", "uebung",  # German
              "ejercicio", "pregunta", "problema", "tarea",  # Spanish
              "esercizio", "domanda", "compito",  # Italian
              "opgave", "vraag", "oefening")  # Dutch
"""Words naming a task in a heading (folded: lower case, accents dropped)."""

_PLURAL = ("", "s", "es", "n", "en", "i", "e")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{[^}]*\})?\s*$")
KEY = 40
"""Folded characters of a section's first paragraph that a field must hold for it to be read."""


def _fold(text: str) -> str:
    text = text.lower().translate(str.maketrans("àâäáãçéèêëíìîïñóòôöõúùûüß", "aaaaaceeeeiiiinooooouuuus"))
    return re.sub(r"[^a-z0-9]", "", text)


def names_task(heading: str) -> bool:
    """Does ``heading`` name a task: one of its words is a word of :data:`TASK_WORDS`, with a
    plural ending, or a compound ending with one of five letters or more (``Hausaufgaben``)?"""
    for token in re.findall(r"[^\W\d_]+", heading.lower()):
        token = _fold(token)
        for w in TASK_WORDS:
            for end in _PLURAL:
                form = w + end
                if token == form or (len(w) >= 5 and token.endswith(form)):
                    return True
    return False


@dataclass
class Section:
    """A named section: its heading level and text, and the first paragraph of its own text
    (before any list or deeper heading), folded (``""`` when it opens with a list)."""

    level: int
    heading: str
    own: str


def named_sections(markdown: str) -> list[Section]:
    """The sections of ``markdown`` at the shallowest heading level whose two or more headings
    are all unnumbered and name a task (:func:`names_task`); ``[]`` when no level is so."""
    heads: list[tuple[int, int, str]] = []
    lines = markdown.splitlines()
    fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _HEADING.match(line)
        if m:
            heads.append((i, len(m.group(1)), m.group(2)))
    for level in sorted({lv for _, lv, _ in heads}):
        mine = [(i, t) for i, lv, t in heads if lv == level]
        if len(mine) < 2 or any(re.search(r"\d", t) for _, t in mine) or not all(names_task(t) for _, t in mine):
            continue
        out = []
        for i, text in mine:
            own = []
            for line in lines[i + 1:]:
                if _HEADING.match(line) or re.match(r"\s*(?:[-*+]|\d+[.)]|\(?[a-z]\))\s", line) or (own and not line.strip()):
                    break
                if line.strip():
                    own.append(line.strip())
            out.append(Section(level, text, _fold(" ".join(own))[:KEY]))
        return out
    return []


def unread(sections: list[Section], questions: SheetSet) -> list[Section]:
    """The sections whose own text no field of ``questions`` holds."""
    texts = [_fold(t) for t in field_texts(questions)]
    return [s for s in sections if s.own and not any(s.own in t for t in texts)]


def opened(sections: list[Section], questions: SheetSet) -> float:
    """The share of ``sections`` at which ``questions`` open a question (its title the
    heading's words); 1.0 with no section."""
    if not sections:
        return 1.0
    titles = {_fold(q.title) for q in questions.root}
    return sum(1 for s in sections if _fold(s.heading) in titles) / len(sections)
