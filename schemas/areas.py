"""Answer boxes (issue 5): what a model proposes per part, what is kept, and the score
against an export.

An answer box is a Lambda Feedback *response area*; the platform's export stores each
as ``response.responseInput.{responseType, answer}`` with ``preResponseText`` shown
before the box.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator

from schemas.routes import Usage
from schemas.status import StageStatus, State

BoxKind = Literal["NUMERIC_UNITS", "MATH_SINGLE_LINE", "MULTIPLE_CHOICE"]
"""The three kinds of answer box proposed; the platform's ``responseType`` names."""

KINDS: tuple[str, ...] = ("NUMERIC_UNITS", "MATH_SINGLE_LINE", "MULTIPLE_CHOICE")


class Box(BaseModel):
    """One answer box, in the form the platform marks against.

    ``kind``: ``NUMERIC_UNITS`` (a number with units, ``answer`` like ``0.106 kg``),
    ``MATH_SINGLE_LINE`` (a symbolic expression, ``answer`` like
    ``(pi/6)*rho*U**2*R**2``) or ``MULTIPLE_CHOICE`` (``answer`` one boolean per option of
    the part, in option order). ``label`` is the short text shown before the box
    (``$m=$``), markdown, possibly empty.
    """

    kind: BoxKind
    label: str = ""
    answer: StrictStr | list[StrictBool]

    @field_validator("label", mode="before")
    @classmethod
    def _no_label(cls, value: Any) -> Any:
        """A ``null`` label is an empty one."""
        return "" if value is None else value

    @field_validator("answer", mode="before")
    @classmethod
    def _number_as_text(cls, value: Any) -> Any:
        """A JSON number is read as its text (``0.106`` → ``"0.106"``); a multiple choice
        takes JSON booleans only (``1``/``"yes"`` are not converted)."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return repr(value)
        return value


class Tolerance(BaseModel):
    """How far a numeric answer may be off: ``rtol`` (relative, a fraction) or ``atol``
    (absolute, in the answer's units), as the platform's compareExpressions reads them.
    ``stated`` is the sheet's words it was read from (``to 3 s.f.``, ``±2 %``), empty when it
    is a guess; ``rule`` says which rule gave it, in one line (for the flag)."""

    rtol: float | None = None
    atol: float | None = None
    stated: str = ""
    rule: str = ""

    @property
    def guessed(self) -> bool:
        """True when the sheet states no tolerance (the box is flagged ``area``)."""
        return not self.stated


class InputSymbol(BaseModel):
    """One symbol a student types: ``code`` what the evaluation function reads (``rho``),
    ``latex`` the display symbol in single dollars (``$\\rho$``), ``aliases`` other spellings
    read as ``code`` (``Rho``, ``RHO``, ``ρ``). Written as the platform's ``inputSymbols``
    entry ``{symbol, code, aliases, isVisible}`` (in2lambda's ``InputSymbol``)."""

    code: str
    latex: str
    aliases: list[str] = Field(default_factory=list)


class BoxSettings(BaseModel):
    """What a box is written with besides its answer: ``params`` its grade parameters
    (``None`` for none; in2lambda adds ``physical_quantity: true`` to a number with units),
    ``symbols`` its input symbols, ``tolerance`` (``None`` for a box compared exactly)."""

    params: dict[str, Any] | None = None
    symbols: list[InputSymbol] = Field(default_factory=list)
    tolerance: Tolerance | None = None


class Proposal(BaseModel):
    """The reply of one call for one part: its boxes in the order a student fills them
    (an empty list for a part asking for a discussion, sketch or proof)."""

    boxes: list[Box] = Field(default_factory=list)


class PartBoxes(BaseModel):
    """The outcome for one part: ``field`` its 1-based key (``q2.p1``), ``boxes`` the boxes
    kept, ``refused`` one line per box (or whole reply) refused, with the reason.

    ``proposed`` counts the boxes proposed (kept and refused); ``status`` a
    :class:`schemas.status.StageStatus`: ``ran`` (a live call, or read from the sheet with
    none), ``replayed`` (saved reply), ``skipped`` (no reply to be had; ``cause``
    ``offline_no_reply`` under ``--offline``, else ``no_backend``) or ``failed``
    (``backend_error``); ``source`` ``sheet`` when the boxes were read from the part's own
    final answer or marked option (:mod:`tasks.boxes.sheet`, no call; ``quote`` the text
    read), else ``model``; ``calls`` the live calls made (a re-ask counts), ``usage`` their
    tokens and cost, ``raw`` the last reply's text (saved in ``replies/areas.json``).
    """

    model_config = ConfigDict(extra="forbid")

    field: str
    boxes: list[Box] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    proposed: int = 0
    status: StageStatus = Field(default_factory=lambda: StageStatus(state=State.ran))
    source: Literal["model", "sheet"] = "model"
    quote: str = ""
    calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    raw: str = ""


class Miss(BaseModel):
    """One box that did not match: ``part`` (``q2.p1``), ``wanted`` the export's box and
    ``made`` ours, each written ``KIND label answer`` (``-`` where there is none)."""

    part: str
    wanted: str
    made: str


class Score(BaseModel):
    """Boxes scored against an export: ``matched`` of ``in_export`` boxes, and the misses."""

    matched: int = 0
    in_export: int = 0
    misses: list[Miss] = Field(default_factory=list)


class AreasSummary(BaseModel):
    """The answer-box stage of one document, for its report.

    ``status``: ``ran``, ``replayed``, ``mixed`` (some parts each way), ``off``
    (``--no-areas``), ``skipped: …`` (no backend and no saved ``areas.json``) or ``failed``
    (no part had a reply); ``parts`` eligible parts asked, ``calls`` live calls;
    ``proposed`` boxes in the replies, ``refused`` refusals (boxes or whole replies),
    ``written`` boxes in the set, ``from_sheet`` of them read from the sheet with no call.
    ``matched``/``in_export``/``misses`` score the written
    boxes against the export's (``None`` and empty without an export).
    """

    status: str = "off"
    parts: int = 0
    calls: int = 0
    proposed: int = 0
    refused: int = 0
    written: int = 0
    from_sheet: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    matched: int | None = None
    in_export: int | None = None
    misses: list[Miss] = Field(default_factory=list)
