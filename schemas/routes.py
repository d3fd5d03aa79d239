"""What each route produced, and the adjudication verdicts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schemas.flags import Flag
from schemas.sheet import SheetSet
from schemas.status import StageStatus


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
    ``skipped`` (nothing to run) or ``failed``, with the reason for the last two.
    ``questions`` is the reading (``None`` unless ran or replayed); ``raw`` the reply or
    filter output as text, saved under ``replies/``. ``backend`` and ``model`` name who
    answered (route A), ``calls`` counts live calls made (0 when replayed), and for
    route B ``filter_label`` says which filter ran (``library filter latex``, ``given
    filter``, ``written filter (attempt 2 of 3)``) and ``filter_source`` is its Lua.
    """

    route: Literal["A", "B"]
    status: StageStatus
    questions: SheetSet | None = None
    raw: str = ""
    usage: Usage = Field(default_factory=Usage)
    backend: str = ""
    model: str = ""
    calls: int = 0
    filter_label: str = ""
    filter_source: str = ""
    pairing: str = ""
    flags: list[Flag] = Field(default_factory=list)

    @property
    def written_filter(self) -> bool:
        """True when route B's filter was written by the model for this sheet."""
        return self.filter_label.startswith("written filter")


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


class AdjudicationResult(BaseModel):
    """What tier 2 did: the ``verdicts`` (``None`` when none could be had, which leaves
    every dispute flagged), its ``status``, the ``usage`` of its calls and the ``raw``
    reply saved under ``replies/adjudication.json``."""

    verdicts: list[Adjudication] | None = None
    status: StageStatus
    usage: Usage = Field(default_factory=Usage)
    raw: str = ""


class Dispute(BaseModel):
    """A field on which route A and route B disagree: its key and both texts."""

    field: str
    a: str
    b: str


class RouteChecks(BaseModel):
    """Both routes' verbatim checks and their disputes, computed in one task.

    ``not_verbatim_a`` / ``not_verbatim_b`` map a field key to the passages of it that
    are not a quote of the markdown; ``disputes`` are the fields on which the readings
    differ after folding notation.
    """

    not_verbatim_a: dict[str, list[str]] = Field(default_factory=dict)
    not_verbatim_b: dict[str, list[str]] = Field(default_factory=dict)
    disputes: list[Dispute] = Field(default_factory=list)
