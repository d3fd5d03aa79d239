"""A notebook that holds its answers in place, cell after cell: a corrected copy (a
teacher's key, ``Correction de l'interrogation du …``, ``Homework 3 Solutions``) in which
each question is a markdown cell holding a heading and the question's prompt, and the cells
after it, up to the next heading cell, answer it: code the teacher ran (with the outputs it
printed) and commentary. Those cells become one ``solution`` div right after the prompt cell
(:func:`tasks.convert.nb_solutions.solution_cell`), so the reader attaches them to the
question as it does any notebook solution.

When a notebook is read so: its title (the first heading of its first markdown cell that has
one) names it as the answers (:func:`titled_as_answers`), its file is not named as solutions
(such a file is read with its solutions in place already:
:func:`tasks.read.choose.solutions_inline`), and no tool's solution convention
(:mod:`tasks.convert.nb_solutions`) is in it. The cell boundary is the notebook's own:
a prompt cell's text is all question (its example, its list of cases), and what follows the
cell is answer, but for the code a prompt asks about (:func:`answers_in_place`).
"""

from __future__ import annotations

import re

from tasks.convert.nb_solutions import fence, outputs_text, solution_cell, source_of

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(?P<text>\S.*?)\s*#*\s*$")
_ANSWER_WORD = (r"(?:solutions?|answers?|answer\s+key|corrections?|corrig[ée]s?|"
                r"(?:muster)?l(?:ö|oe)sung(?:en)?|soluci[oó]n(?:es)?|uitwerking(?:en)?|oplossing(?:en)?)")
_LINK = r"(?:to|for|de|du|des|d[’']|zu|zum|zur|der|van|del)"
TITLED = re.compile(
    rf"(?:^|[\s\-–—:(])(?P<w>{_ANSWER_WORD})(?:\s*[)\].!]*\s*$|\s*[:\-–—]\s|\s+{_LINK}(?=[\s\w]))", re.I)
"""A title naming its document as the answers: the word (solutions, answer key, correction,
corrigé, Lösungen, soluciones, uitwerkingen, …) ending the title (``Homework 3 Solutions``),
before a separator (``Solutions: week 4``) or before a word linking it to what it answers
(``Solutions to problem set 2``, ``Correction de l'interrogation``, ``Lösungen zu Blatt 3``).
The word used as a plain noun is not enough: ``Error correction codes``, ``Solutions of
the heat equation`` name a topic."""


def _heading(cell: dict) -> re.Match | None:
    """The heading opening a markdown cell (its first non-blank line), ``None`` when none."""
    if cell.get("cell_type") != "markdown":
        return None
    for line in source_of(cell).split("\n"):
        if line.strip():
            return _HEADING.match(line)
    return None


def _title_index(cells: list[dict]) -> int | None:
    """The index of the first markdown cell that has a heading line anywhere (the title)."""
    for i, c in enumerate(cells):
        if c.get("cell_type") == "markdown" and any(_HEADING.match(ln) for ln in source_of(c).split("\n")):
            return i
    return None


def titled_as_answers(cells: list[dict]) -> bool:
    """Does the notebook's title (the first heading of its markdown cells) name it as the
    answers (:data:`TITLED`)?"""
    i = _title_index(cells)
    if i is None:
        return False
    title = next(m.group("text") for ln in source_of(cells[i]).split("\n") if (m := _HEADING.match(ln)))
    return bool(TITLED.search(title))


_MARKED = re.compile(r"^\s*(?::{3,}\s*\{?\s*\.?(?:solution|answer)\b|[`~]{3,}\s*\{(?:solution|admonition)\}|<details\b)",
                     re.I | re.M)


def holds_solutions(cells: list[dict]) -> bool:
    """Does a markdown cell already hold a solution by a convention read elsewhere (a
    ``solution`` div, as :mod:`tasks.convert.nb_solutions` writes; a MyST ``{solution}`` or
    ``{admonition}``; an HTML ``<details>`` block)? Then the notebook says itself where its
    answers are, and its cells are not read as answers in place."""
    return any(c.get("cell_type") == "markdown" and _MARKED.search(source_of(c)) for c in cells)


def _prompt(cell: dict) -> bool:
    """A markdown cell opening with a heading and holding text under it (a question's
    heading and prompt in one cell)."""
    if not _heading(cell):
        return False
    lines = [ln for ln in source_of(cell).split("\n") if ln.strip()]
    return len(lines) >= 2 and not all(_HEADING.match(ln) for ln in lines)


def _piece(cell: dict, lang: str) -> list[str]:
    """An answering cell as solution pieces: code fenced with the outputs it printed after
    it, markdown as it is; nothing for an empty cell."""
    text = source_of(cell)
    if not text.strip():
        return []
    if cell.get("cell_type") == "code":
        outputs = outputs_text(cell)
        return [fence(text.strip("\n"), lang)] + ([outputs] if outputs else [])
    if cell.get("cell_type") == "markdown":
        return [text.strip("\n")]
    return []


def _asks(cell: dict) -> bool:
    """Does a prompt cell end by asking (its last line ends with ``?``)?"""
    lines = [ln.strip() for ln in source_of(cell).split("\n") if ln.strip()]
    return bool(lines) and lines[-1].endswith("?")


def answers_in_place(cells: list[dict], lang: str) -> list[dict]:
    """``cells`` (a notebook read as :func:`titled_as_answers` allows) with the cells after
    each prompt cell, up to the next heading cell, as one ``solution`` div cell after it.

    A prompt that ends by asking (``?``) about what follows it (``What does the program below
    print?``) is followed by the code it asks about: when a code cell comes right after it and
    more answering cells follow that one, the code stays the question's (shown without its
    outputs, which are the answer's first piece). A prompt that asks nothing is answered from
    the cell after it on (``Write a function …``). The cells after the title's own cell are not
    wrapped (a title has no answer). Cells are dicts of the notebook format; the list given is
    not changed."""
    title = _title_index(cells)
    out: list[dict] = []
    i = 0
    while i < len(cells):
        cell = cells[i]
        out.append(cell)
        i += 1
        if not _prompt(cell) or i - 1 == title:
            continue
        end = i
        while end < len(cells) and not _heading(cells[end]):
            end += 1
        run = [c for c in cells[i:end] if c.get("cell_type") in ("code", "markdown") and source_of(c).strip()]
        pieces: list[str] = []
        if _asks(cell) and len(run) >= 2 and run[0].get("cell_type") == "code":
            asked = run.pop(0)
            out.append({**asked, "outputs": [], "execution_count": None})
            printed = outputs_text(asked)
            pieces += [printed] if printed else []
        for c in run:
            pieces += _piece(c, lang)
        if pieces:
            out.append(solution_cell(pieces))
        out += [c for c in cells[i:end] if c.get("cell_type") not in ("code", "markdown")]
        i = end
    return out
