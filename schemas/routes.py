"""What each route produced, and the adjudication verdicts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schemas.sheet import SheetSet

RouteStatus = Literal["ran", "replayed", "skipped", "failed"]


class Usage(BaseModel):
    """Tokens in and out of a model call and its cost in US dollars."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


class RouteResult(BaseModel):
    """One route's reading of a document.

    ``status``: ``ran`` (live call or filter run), ``replayed`` (a saved reply),
    ``skipped`` (nothing to run) or ``failed``; ``reason`` says why for the last two.
    ``questions`` is the reading (``None`` unless ran or replayed); ``raw`` the reply or
    filter output as text, saved under ``replies/``.
    """

    route: Literal["A", "B"]
    status: RouteStatus
    reason: str = ""
    questions: SheetSet | None = None
    raw: str = ""
    usage: Usage = Field(default_factory=Usage)
    detail: dict[str, str] = Field(default_factory=dict)


Verdict = Literal["A", "B", "same", "source", "person"]


class Adjudication(BaseModel):
    """The tier-2 verdict on one disputed field.

    ``verdict`` is ``A``, ``B``, ``same`` (the two render alike), ``source`` (with
    ``passage``, an exact quote of the markdown) or ``person``; ``reason`` is one line.
    """

    field: str
    verdict: Verdict
    passage: str | None = None
    reason: str = ""


class AdjudicationReply(BaseModel):
    """The adjudication call's whole reply: one verdict per disputed field."""

    verdicts: list[Adjudication] = Field(default_factory=list)
