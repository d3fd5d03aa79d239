"""How much of a markdown document a reading accounts for.

A reading (route A's reply or a route B filter's output) copies the sheet's words into
fields; a line of the markdown that no field quotes was left out. Chrome (titles,
timing and star lines, ``Generated:`` stamps, separators, bare ``$$`` and list-marker
lines, bare ``Final answer`` / ``Worked solutions`` markers) is left out on purpose and
does not count. Headings are titles: they are never counted either.

The remark rule (the house style of the Mathpix-converted course sheets, see
``filters/library/mathpix.lua``): the first non-empty line after a timing line is a
remark to the student about the course, which a set leaves out, so it is not counted
either (unless it is a part label line).
"""

from __future__ import annotations

import re
from typing import Iterable

from schemas.sheet import SheetSet
from tasks.settle.fold import fold_whitespace

_STARS = "\u2605\u2606"
_BULLET = re.compile(r"^\s*[-*+]\s+")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])(?:\s+|$)")
_LABEL = re.compile(r"^\s*(?:\d+\s*)?(?:\((?:[a-z]|[ivx]+)\)|[a-z]\))(?:\s+|$)")
_MARKER_WORDS = re.compile(r"^(?:final answers?|worked solutions?|solutions?|answers?)\s*:?$", re.I)
_TIMING = re.compile(r"^\(?\d+\s*(?:-\s*\d+\s*)?min[a-z]*\.?\)?$", re.I)
_SEPARATOR = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$")
_BARE = re.compile(r"^\s*(?:\$\$|[-*+]|\d+[.)]|\((?:[a-z]|[ivx]+)\)|[a-z]\))\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)(?:\{[^}]*\})?")


def is_timing(line: str) -> bool:
    """A timing or star line: ``5-10 mins``, ``★★ 15-20 mins``, ``- 15-20 mins``,
    ``* 3-5 mins``, ``- ★ 20-25 mins``, ``★★``."""
    s = _BULLET.sub("", line, count=1)
    stars = sum(s.count(c) for c in _STARS)
    s = s.translate({ord(c): None for c in _STARS}).replace("\u2013", "-").strip()
    if not s:
        return stars > 0
    return bool(_TIMING.match(s))


def is_chrome(line: str) -> bool:
    """True for a line a set leaves out on purpose: blank, a title (heading) line, a
    timing or star line, a ``Generated:`` stamp, a separator (``---``, ``***``,
    ``___``, ``===``), a bare ``$$`` / list-marker / part-label line, or a bare
    ``Final answer`` / ``Worked solutions`` marker (after its part label, if any)."""
    s = line.strip()
    return (
        not s
        or bool(_HEADING.match(line))
        or is_timing(line)
        or s.startswith("Generated:")
        or bool(_SEPARATOR.match(line))
        or bool(_BARE.match(line))
        or bool(_MARKER_WORDS.match(_LABEL.sub("", s, count=1).strip()))
    )


def _content(line: str) -> str:
    """The line without a leading list marker and part label, whitespace folded."""
    s = line
    while True:  # nested list markers: ``1.  1.  text``
        stripped = _MARKER.sub("", s, count=1)
        if stripped == s:
            break
        s = stripped
    s = _LABEL.sub("", s, count=1)
    return fold_whitespace(s)


def field_texts(questions: SheetSet) -> list[str]:
    """Every text of a reading: titles, main texts, contents, options, final answers
    and worked solutions, in document order."""
    out: list[str] = []
    for q in questions.root:
        out += [q.title, q.main_text]
        for p in q.parts:
            out += [p.content, *p.options, p.answer, p.worked_solution]
    return [t for t in out if t]


def _counted(markdown: str) -> Iterable[tuple[int, str, str]]:
    after_timing = False
    for number, line in enumerate(markdown.splitlines(), start=1):
        if is_timing(line):
            after_timing = True
            continue
        if not line.strip():
            continue
        if after_timing:
            after_timing = False
            if not _LABEL.match(line):
                continue  # the remark rule
        if is_chrome(line):
            continue
        content = _content(line)
        if content:
            yield number, line, content


def _is_covered(line: str, content: str, joined: str, names: set[str]) -> bool:
    image = _IMAGE.fullmatch(content)
    if image:
        return image.group(1).rsplit("/", 1)[-1] in names
    return content in joined


def _prepare(texts: list[str]) -> tuple[str, set[str]]:
    joined = "\n\x00\n".join(fold_whitespace(t) for t in texts)
    names = {m.group(1).rsplit("/", 1)[-1] for t in texts for m in _IMAGE.finditer(t)}
    return joined, names


def uncovered(markdown: str, texts: list[str]) -> list[tuple[int, str]]:
    """The lines of ``markdown`` that no text quotes: ``[(line number, line)]``.

    Line numbers are 1-based. Counted are the non-empty lines that are neither chrome
    (:func:`is_chrome`), headings, nor a remark under the remark rule (see the module). A line is covered when its content (without a
    leading list marker such as ``- ``, ``* ``, ``1. `` and a leading part label such as
    ``(a) ``, whitespace folded with :func:`tasks.settle.fold.fold_whitespace`) occurs in some
    text, folded the same way; a line that is one image counts as covered when its
    file name occurs in an image link of some text.
    """
    joined, names = _prepare(texts)
    return [(n, line) for n, line, c in _counted(markdown) if not _is_covered(line, c, joined, names)]


def coverage(markdown: str, texts: list[str]) -> float:
    """The covered share (0..1) of the counted lines of ``markdown`` (see
    :func:`uncovered`); 1.0 when no line is counted."""
    joined, names = _prepare(texts)
    counted = list(_counted(markdown))
    if not counted:
        return 1.0
    covered = sum(1 for _, line, c in counted if _is_covered(line, c, joined, names))
    return covered / len(counted)
