"""Solutions that run on into the question before, and the options a key marks (route B's
pairing, :func:`tasks.read.route_b.merge_solutions`).

A solutions document that restates each prompt before its answer can lose the marker that
opens a question: the next number glued after a plot in the same paragraph (``![](plot.png)
10. Interpret the plot you made in 9.``, a Word document knitted from R Markdown), a
solutions file renumbered after a question was cut, a list a conversion broke. The reader
then reads question N's restated prompt and its answer into question N-1's solution, and
question N gets none. :func:`split_run_on` finds such a prompt: question N has no solution,
and the last solution of question N-1 holds a paragraph that opens with question N's
prompt (its first paragraph, folded, at least :data:`MIN_FOLDED` characters; before it only
a number, points or a picture). The solution is cut there: the text before (a picture
kept) stays with question N-1, the text after the prompt goes to question N, the
restated prompt to neither. Questions are taken from the last one back, so a run of them
shifted by one (a renumbered file) is undone one by one.
"""

from __future__ import annotations

import re

from schemas.sheet import Part, Question, SheetSet

MIN_FOLDED = 20
"""Folded characters (letters and digits) a prompt needs before its restatement is looked for:
a shorter one may be in a solution by chance."""

MIN_GIVEN = 10
"""Folded characters the text after the restated prompt needs before it is taken as the answer."""

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?")
_POINTS = re.compile(r"\b\d+\s*(?:points?|pts?|marks?)\b", re.I)
_MARKER_CHARS = re.compile(r"[\d\s*_#\\.():]")
_PARAGRAPH_BREAK = re.compile(r"(\n[ \t]*\n)")


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with only letters and digits, and for each kept character its index
    in ``text``."""
    kept, where = [], []
    for i, c in enumerate(text):
        if c.isalnum():
            kept.append(c.lower())
            where.append(i)
    return "".join(kept), where


def _fold(text: str) -> str:
    return _folded_with_map(text)[0]


def _prompt(question: Question) -> str:
    """The question's prompt: its main text's first paragraph, else its first part's."""
    for text in [question.main_text, *(p.content for p in question.parts)]:
        first = next((p for p in re.split(r"\n\s*\n", text) if p.strip()), "")
        if first:
            return first
    return ""


def _solved(question: Question) -> bool:
    return any(p.answer.strip() or p.worked_solution.strip() for p in question.parts)


def _marker_only(prefix: str) -> bool:
    """Is ``prefix`` only what opens a restated prompt: pictures, a number, points, markup?"""
    rest = _POINTS.sub("", _IMAGE.sub("", prefix))
    return _MARKER_CHARS.sub("", rest) == ""


def _cut(text: str, prompt: str) -> tuple[str, str] | None:
    """``text`` cut at the paragraph opening with ``prompt`` (compared folded): ``(before,
    after)`` with the prompt (its closing marks too: a code span's backtick, a question mark)
    and the marker before it (a picture kept) left out; ``None`` when no paragraph opens so or
    nothing of substance follows."""
    key = _fold(prompt)
    closing = re.search(r"[^\w]*$", prompt.strip()).group(0)
    pieces = _PARAGRAPH_BREAK.split(text)
    for k in range(0, len(pieces), 2):
        paragraph = pieces[k]
        folded, where = _folded_with_map(paragraph)
        at = folded.find(key)
        if at < 0 or not _marker_only(paragraph[:where[at]]):
            continue
        prefix = paragraph[:where[at]]
        images = list(_IMAGE.finditer(prefix))
        kept = prefix[:images[-1].end()] if images else ""
        end = where[at + len(key) - 1] + 1
        if closing and paragraph.startswith(closing, end):
            end += len(closing)
        after = re.sub(r"^[\s?.!:;*_\\]*", "", paragraph[end:]) + "".join(pieces[k + 1:])
        if len(_fold(after)) < MIN_GIVEN:
            return None
        before = "".join(pieces[:k]) + kept
        return before.strip(), after.strip()
    return None


def split_run_on(merged: SheetSet) -> SheetSet:
    """``merged`` (questions with their solutions paired) with each question's solution that
    was read into the question before it given back (see the module). Returns a new
    :class:`SheetSet`; the input is not changed."""
    out = merged.model_copy(deep=True)
    qs = out.root
    for j in range(len(qs) - 1, 0, -1):
        if _solved(qs[j]):
            continue
        prompt = _prompt(qs[j])
        if len(_fold(prompt)) < MIN_FOLDED:
            continue
        before_q = qs[j - 1]
        last = next((p for p in reversed(before_q.parts) if p.answer.strip() or p.worked_solution.strip()), None)
        if last is None:
            continue
        for name in ("worked_solution", "answer"):
            cut = _cut(getattr(last, name), prompt)
            if cut is None:
                continue
            setattr(last, name, cut[0])
            if not qs[j].parts:
                qs[j].parts.append(Part())
            setattr(qs[j].parts[0], name, cut[1])
            break
    return out


def put_correct(part: Part, solution: Part) -> None:
    """The options a solutions document marks right (a key that sets the right option in bold
    among the same options) onto the question's part, when both hold as many options and the
    part has no mark of its own."""
    if solution.correct and not part.correct and part.options and len(solution.options) == len(part.options):
        part.correct = list(solution.correct)
