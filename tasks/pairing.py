"""Stage 2: pairing a sheet with its solutions document by file name.

The solutions of ``SHEET.EXT`` are the file beside it named ``SHEET`` followed by one of
:data:`SOLUTIONS_SUFFIXES` (any case), with the same extension::

    sheet-2.tex   → sheet-2-solutions.tex
    questions.md  → questions_solutions.md
    Sheet1.docx   → Sheet1Solutions.docx or "sheet1 solutions.docx"
"""

from __future__ import annotations

import re
from pathlib import Path

SOLUTIONS_SUFFIXES = ("_solutions", "-solutions", " solutions", "solutions")
"""What follows a sheet's stem in its solutions' stem, in order of preference (matched
case-insensitively, so ``Solutions`` and ``SOLUTIONS`` are the last one)."""


def find_solutions(source: Path) -> Path | None:
    """The solutions document beside ``source``, or ``None`` when there is none.

    A file in ``source``'s folder whose stem is ``source``'s stem followed by one of
    :data:`SOLUTIONS_SUFFIXES` (compared case-insensitively) and whose extension is the
    same (case-insensitively). ``source`` itself is never returned. When several match,
    the earlier suffix in :data:`SOLUTIONS_SUFFIXES` wins, then the file name in sorted
    order. A missing folder gives ``None``; never raises for an unreadable folder
    (``None``).
    """
    source = Path(source)
    folder = source.parent
    stem = source.stem.lower()
    suffix = source.suffix.lower()
    wanted = {stem + s: rank for rank, s in enumerate(SOLUTIONS_SUFFIXES)}
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        return None
    best: tuple[int, Path] | None = None
    for p in entries:
        if p.name == source.name or p.suffix.lower() != suffix:
            continue
        rank = wanted.get(p.stem.lower())
        if rank is None or not p.is_file() or _same_file(p, source):
            continue
        if best is None or rank < best[0]:
            best = (rank, p)
    return best[1] if best else None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


_SEPARATED = re.compile(r"[_\- ]solutions$", re.I)
_BARE = re.compile(r"(?:Solutions|SOLUTIONS|(?<=[0-9])solutions)$")


def is_solutions_name(path: Path) -> bool:
    """True when ``path``'s name says it is a solutions document.

    The stem ends in ``_solutions``, ``-solutions`` or `` solutions`` (any case), or in
    ``Solutions``/``SOLUTIONS`` straight after the sheet's name (``Sheet1Solutions``),
    or in lower-case ``solutions`` straight after a digit (``sheet1solutions``); or the
    stem starts with ``solutions`` (any case: ``solutions-2``, ``Solutions``). A word that
    merely ends in the letters (``resolutions``) is not a solutions name.
    """
    stem = Path(path).stem
    return bool(_SEPARATED.search(stem) or _BARE.search(stem) or stem.lower().startswith("solutions"))
