"""The outcome of tiers 1–3 for one document."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schemas.flags import Flag
from schemas.sheet import SheetSet

Tier = Literal["agreed", "single", "adjudicated", "flagged", "empty"]


class FieldOutcome(BaseModel):
    """How one field of the set was settled.

    ``tier``: ``agreed`` (tier 1, both routes alike after folding), ``single`` (one
    route filled it), ``adjudicated`` (tier 2), ``flagged`` (tier 3: a person reads it),
    ``empty`` (both routes left it empty). ``taken`` names the text used: ``A``, ``B``
    or ``source``.
    """

    field: str
    tier: Tier
    taken: Literal["A", "B", "source", ""] = ""
    a: str | None = None
    b: str | None = None


class Settled(BaseModel):
    """The set the tiers settled on, every field's outcome and the flags raised."""

    questions: SheetSet
    fields: list[FieldOutcome] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
