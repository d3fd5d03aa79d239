"""A set as the platform exported it, and the comparison of a build with it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schemas.sheet import SheetSet


class Difference(BaseModel):
    """One field where the build and the export differ.

    ``kind`` is ``notation`` (equal after the tier-1 folds and curly/straight quotes)
    or ``content``; ``built`` and ``export`` are the two texts (``None`` where the field
    is missing on that side).
    """

    field: str
    kind: Literal["notation", "content"]
    built: str | None
    export: str | None


class Comparison(BaseModel):
    """The build compared with an export, field by field."""

    export_name: str
    fields_compared: int = 0
    equal: int = 0
    notation: int = 0
    content: int = 0
    differences: list[Difference] = Field(default_factory=list)


class ExportedSet(BaseModel):
    """An exported set read into the route shape (options from its multiple-choice boxes)."""

    name: str
    questions: SheetSet
