"""The verbatim check: every paragraph of every field must occur in the markdown read.

Copy, never write: a field passes when each of its paragraphs (blank-line separated),
whitespace folded, is a substring of the markdown the route read (the questions
document and the solutions document), whitespace folded the same way. Titles are
excepted: a title is a heading shortened by the route (``1.1 Hydraulic scale`` →
``Hydraulic scale``) or given by the platform (``Question 1``).
"""

from __future__ import annotations

import re

from schemas.sheet import SheetSet, iter_fields
from tasks.settle.fold import fold_whitespace

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def paragraphs(text: str) -> list[str]:
    """The non-empty paragraphs of a field, split at blank lines."""
    return [p.strip() for p in _PARAGRAPH_BREAK.split(text or "") if p.strip()]


def missing_paragraphs(text: str, folded_sources: list[str]) -> list[str]:
    """The paragraphs of ``text`` that occur in none of ``folded_sources``.

    ``folded_sources`` are markdown texts already passed through
    :func:`tasks.settle.fold.fold_whitespace` (fold once, check many fields).
    """
    missing = []
    for para in paragraphs(text):
        needle = fold_whitespace(para)
        if not any(needle in src for src in folded_sources):
            missing.append(para)
    return missing


def not_verbatim(reading: SheetSet, sources: list[str]) -> dict[str, list[str]]:
    """Fields of ``reading`` that fail the check: ``{field key: [missing paragraphs]}``.

    ``sources`` are the markdown texts the route read (questions, and solutions if any).
    Titles are not checked. An empty dict means every field is verbatim.
    """
    folded = [fold_whitespace(s) for s in sources if s]
    failures: dict[str, list[str]] = {}
    for key, text in iter_fields(reading):
        if key.endswith(".title") or not text.strip():
            continue
        missing = missing_paragraphs(text, folded)
        if missing:
            failures[key] = missing
    return failures
