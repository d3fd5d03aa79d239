"""Where a field's text starts in a markdown document: the lines as coverage reads them
(markers cut, list marker and label stripped, whitespace folded), so the structure audit
(:mod:`tasks.settle.audit`) can compare the set's questions with the sheet's markers."""

from __future__ import annotations

import re

from schemas.sheet import SheetSet
from tasks.settle.coverage import PIECES, line_content, markers_removed
from tasks.settle.fold import fold_whitespace
from tasks.settle.markers import LABEL, question_markers

_FENCE = re.compile(r"^(?:```|~~~)")
_WORD = re.compile(r"[^\W_]")


class SourceLines:
    """A document's lines, each as coverage reads it (markers cut, list marker and label
    stripped, whitespace folded), for finding where a field's text starts."""

    def __init__(self, markdown: str):
        self.written = markdown.splitlines()
        cut = markers_removed("\n".join(self.written)).split("\n")
        self.lines = [fold_whitespace(line_content(c).replace(PIECES, " ")) for c in cut]
        # each line's first piece (a line of inline parts is cut into one piece per part)
        self.heads = [fold_whitespace(line_content(c).split(PIECES)[0]) for c in cut]

    def find(self, text: str, start: int = 0) -> int | None:
        """The 0-based index of the first line at or after ``start`` whose content holds
        the first line of ``text`` (a reader cuts fields at line boundaries) that can say where
        it is: not a code fence (a fence opens every chunk alike) and with two letters or digits
        at least; ``None`` when there is none."""
        first = ""
        for line in markers_removed(text).splitlines():
            first = fold_whitespace(line_content(line).replace(PIECES, " "))
            if first and first != "$$" and not _FENCE.match(first) and len(_WORD.findall(first)) >= 2:
                break
            first = ""
        if not first:
            return None
        key = first[:80]
        for i in range(start, len(self.lines)):
            if self.lines[i] and key in self.lines[i]:
                return i
        return None

    def label(self, i: int) -> str | None:
        """The part label opening line ``i`` as written, or ``None``."""
        m = LABEL.match(self.written[i])
        return (m.group("p") or m.group("c")) if m else None


def question_starts(questions: SheetSet, src: SourceLines) -> list[int | None]:
    """Where each question's first text starts in the source (0-based line), in order."""
    out: list[int | None] = []
    at = 0
    for q in questions.root:
        texts = [q.main_text] + [t for p in q.parts for t in (p.content, *p.options)]
        pos = None
        for t in texts:
            if t.strip():
                pos = src.find(t, at)
                if pos is not None:
                    break
        out.append(pos)
        if pos is not None:
            at = pos + 1  # the next question starts further on (two may open alike)
    return out


def question_at(questions: SheetSet, questions_md: str, line: int) -> int | None:
    """The question (0-based) whose text starts last at or before 1-based ``line`` of the
    questions document, ``None`` when the line comes before every question's text."""
    best = None
    for qi, st in enumerate(question_starts(questions, SourceLines(questions_md))):
        if st is not None and st + 1 <= line:
            best = qi
    return best


def opened_by_marker(questions: SheetSet, questions_md: str, markers=None) -> dict[int, int]:
    """Marker index (of ``markers``, default :func:`question_markers` of ``questions_md``) → the
    question (0-based) it opens: the question whose text starts first after that marker and
    before the next one, unless the marker's own line is quoted by the question whose text
    runs there (it started earlier: a section's lead-in read into its main text, then the run-in
    marker ``**Q1**. Write …``): then that one. A marker opening no question is left out."""
    markers = question_markers(questions_md) if markers is None else markers
    src = SourceLines(questions_md)
    starts = question_starts(questions, src)
    out: dict[int, int] = {}
    for k, m in enumerate(markers):
        nxt = markers[k + 1].line if k + 1 < len(markers) else 1 << 30
        qi = next((i for i, s in enumerate(starts) if s is not None and m.line <= s + 1 < nxt), None)
        running = max((i for i, s in enumerate(starts) if s is not None and s + 1 < m.line), default=None,
                      key=lambda i: starts[i])
        if running is not None and _quotes_line(questions.root[running], src, m.line - 1):
            qi = running
        if qi is not None:
            out[k] = qi
    return out


def _quotes_line(question, src: SourceLines, i: int) -> bool:
    """Does a text of ``question`` (title, main text, a part's content or options) hold line
    ``i`` (0-based) of the document as coverage reads it, with two letters or digits at least?"""
    line = src.lines[i] if 0 <= i < len(src.lines) else ""
    if len(_WORD.findall(line)) < 2:
        return False
    texts = [question.title, question.main_text] + [t for p in question.parts for t in (p.content, *p.options)]
    held = " ".join(fold_whitespace(line_content(c).replace(PIECES, " "))
                    for t in texts if t for c in markers_removed(t).splitlines())
    return line[:80] in held
