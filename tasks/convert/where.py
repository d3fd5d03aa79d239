"""Where in the sheet a conversion warning sits: the line pandoc's log names, whether it is
in the preamble, and the sheet's words just before it, by which the settle step finds the
field a loss sits in (:func:`tasks.settle.tiers.conversion_loss_flags`)."""

from __future__ import annotations

import re
from functools import lru_cache

_PICTURE = re.compile(r"\\begin\{(tikzpicture|pspicture|picture|axis)\}.*?\\end\{\1\}", re.S)
"""A drawing: its words are code, never the words before a loss."""


def strip_comment(line: str) -> str:
    """``line`` without its LaTeX comment (from the first ``%`` not escaped by a backslash)."""
    for m in re.finditer(r"%", line):
        k, j = 0, m.start() - 1
        while j >= 0 and line[j] == "\\":
            k += 1
            j -= 1
        if k % 2 == 0:
            return line[: m.start()]
    return line


def unescaped_at(entries: list[dict]) -> frozenset[tuple[int, int]]:
    """The ``(line, column)`` of every ``ParsingUnescaped`` entry: a character pandoc kept as it is."""
    return frozenset((e["line"], e["column"]) for e in entries if e.get("type") == "ParsingUnescaped"
                     and isinstance(e.get("line"), int) and isinstance(e.get("column"), int))


@lru_cache(maxsize=4)  # asked once per log entry of the same sheet: thousands on a long one
def document_line(source: str) -> int | None:
    """The 1-based line of ``\\begin{document}`` in ``source`` (comments ignored), or ``None``."""
    for i, line in enumerate(source.split("\n"), 1):
        if re.search(r"\\begin\{document\}", strip_comment(line)):
            return i
    return None


_WORD = re.compile(r"(?<![\\A-Za-z@])[A-Za-z]{4,}")
NEAR_WORDS = 8
"""How many of the sheet's words before a loss :func:`words_before` keeps."""


def words_before(source: str, line: int, column: int = 1, skipped: str = "", first: int = 1) -> str:
    """The last :data:`NEAR_WORDS` words of four letters or more of ``source`` before the
    piece ``skipped`` that pandoc reported at 1-based ``line`` and ``column`` (pandoc gives the
    line it starts on and a column at or after its first characters), from line ``first`` on
    (the body), comments, command names, environment names and the names a command takes
    (labels, references, citation keys, files: :data:`_ENV_NAME`) left out, joined by spaces;
    ``""`` when there are none."""
    lines = _without_drawings(source)
    start = max(1, line)
    cut = lines[start - 1] if start - 1 < len(lines) else ""
    head = skipped.split("\n")[0].strip()
    end = max(0, column - 1)
    at = cut.rfind(head, 0, end + len(head)) if head else -1
    cut = cut[:at] if at >= 0 else cut[:end]
    words: list[str] = []
    for text in [cut, *lines[max(0, first - 1):start - 1][::-1]]:
        words[:0] = _WORD.findall(_ENV_NAME.sub(" ", strip_comment(text)))
        if len(words) >= NEAR_WORDS:
            break
    return " ".join(words[-NEAR_WORDS:])


@lru_cache(maxsize=4)  # the same sheet for every log entry of it
def _without_drawings(source: str) -> tuple[str, ...]:
    """``source``'s lines with each drawing's characters made spaces (no drawing's words)."""
    return tuple(_PICTURE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source).split("\n"))


_ENV_NAME = re.compile(r"\\(?:begin|end|label|ref|eqref|pageref|cref|Cref|autoref|cite[tp]?|includegraphics|input|include)"
                       r"\*?\s*(?:\[[^\]]*\])?\s*\{[^}]*\}")
"""Commands whose argument is a name, never words of the sheet (an environment, a label or a
reference to one, a citation key, a file): left out of the words before a loss."""
