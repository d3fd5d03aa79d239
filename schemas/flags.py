"""Flags: the fields a person must read (tier 3)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

FlagKind = Literal[
    "not_verbatim",
    "structural",
    "disputed",
    "stray_minus",
    "uncovered",
    "conversion_loss",
    "area",
    "structure",
    "katex",
]


class Flag(BaseModel):
    """One field (or passage) a person must read.

    ``field`` is a 1-based field key (``q2.p1.worked_solution``), a part (``q2.p1``, for an
    answer box refused: kind ``area``) or, for a passage in no field, ``source:LINE`` /
    ``solutions:LINE``; ``a`` and ``b`` are the two routes'
    texts where they exist.
    """

    field: str
    kind: FlagKind
    reason: str
    a: str | None = None
    b: str | None = None
