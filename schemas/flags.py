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


POINTING = frozenset({"structure", "structural", "uncovered", "disputed", "not_verbatim", "conversion_loss",
                      "stray_minus"})
"""The flag kinds that doubt a field's text or structure, so may point at a misread
(``../shared/tools/truthscore.py``'s ``POINTING``): a ``katex`` or ``area`` flag says
nothing about whether a part or a solution was read into the right place."""


ROUTE_TEXT_KINDS = frozenset({"disputed", "not_verbatim"})
"""The kinds whose ``a`` and ``b`` are the two routes' texts for the field (so a person may
take either). Every other kind's ``a`` is the passage the flag is about (a maths span KaTeX
cannot render, a command nobody defines, lines in no field, the field's text)."""


class Flag(BaseModel):
    """One field (or passage) a person must read.

    ``field`` is a 1-based field key (``q2.p1.worked_solution``), a part (``q2.p1``, for an
    answer box refused: kind ``area``) or, for a passage in no field, ``source:LINE`` /
    ``solutions:LINE``; for the kinds in :data:`ROUTE_TEXT_KINDS` ``a`` and ``b`` are the
    two routes' texts where they exist, for the others ``a`` is the passage the flag is about.
    """

    field: str
    kind: FlagKind
    reason: str
    a: str | None = None
    b: str | None = None

    @property
    def routes(self) -> bool:
        """Whether ``a``/``b`` are the routes' texts (:data:`ROUTE_TEXT_KINDS`)."""
        return self.kind in ROUTE_TEXT_KINDS
