"""A person's review of a run's flags: the run as the review needs it, the form, the decisions.

A document run writes ``settled.json`` (:class:`SettledRecord`): the set the tiers
settled, the answer boxes kept, the flags, and the digest of each image, which is all a
rebuild needs. The review shows one :class:`ReviewEntry` per open flag in a
:class:`ReviewForm`; each choice becomes a :class:`Decision`, recorded in ``review.json``
(:class:`ReviewLog`, one decision per flag), and the set is rebuilt from ``settled.json`` and every decision
there, with no model call.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from schemas.areas import Box
from schemas.flags import Choice, Flag  # Choice: one definition, a flag says which it allows
from schemas.routes import Usage
from schemas.sheet import SheetSet
from schemas.tiers import FieldOutcome


class SettledRecord(BaseModel):
    """``settled.json``: what a finished run settled, enough to rebuild its set without a call.

    ``source`` is the sheet as the run named it; ``set_name`` the set's name (its folder
    and zip in the output folder); ``description`` the set's description (the document's
    title, ``""`` when it has none); ``questions`` the settled set (before in2lambda's
    layout: titles may be empty, links as written in the markdown); ``fields`` every
    field's tier; ``flags`` every flag of the run, in the order of ``flags.json`` (a
    review names a flag by its 1-based position here); ``boxes`` the answer boxes kept,
    by part key (``q2.p1``); ``images`` each image link as written → the sha256 (hex) of
    the file it named (links with no file are left out).
    """

    source: str
    set_name: str
    description: str = ""
    questions: SheetSet
    fields: list[FieldOutcome] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    boxes: dict[str, list[Box]] = Field(default_factory=dict)
    images: dict[str, str] = Field(default_factory=dict)


class ReviewEntry(BaseModel):
    """One open flag as a person sees it, and what they decide.

    Shown (filled by :func:`tasks.review.form.build_form`): ``flag`` (1-based position in
    ``flags.json``), ``field`` (a field key like ``q2.p1.worked_solution``, a part, or a
    passage ``source:LINE``), ``kind``, ``reason``, ``a``/``b`` the two routes' texts,
    ``current`` the text the set holds now (``None`` when the flag names no text field),
    ``choices`` what may be chosen for it, ``equations`` how many display equations the
    current text holds.

    Filled by the person: ``choice`` (``None``: undecided, the flag stays open),
    ``passage`` (with ``source``), ``note`` (with ``note``), ``equation`` (with ``note``:
    which display equation, 1-based; may be left out when the field holds only one).
    """

    # The UI's form shows the schema's description: a person's words, not this docstring.
    model_config = ConfigDict(extra="forbid", json_schema_extra={"description": (
        "One open flag: the field, why it was flagged, both readings and the text the set holds now. Choose A, "
        "B, keep, source (then copy the passage of the sheet exactly) or note (then say what is wrong with one "
        "display equation); leave the choice empty to keep the flag open.")})

    flag: int = Field(ge=1, description="the flag's number (its position in flags.json, from 1)")
    field: str = Field(description="the field the flag is on (q2.p1.worked_solution), a part, or a line of the sheet")
    kind: str = Field(description="the flag's kind (disputed, not_verbatim, structural, …)")
    reason: str = Field(default="", description="why the field was flagged")
    a: str | None = Field(default=None, description="route A's text (disputed, not_verbatim), else the passage flagged")
    b: str | None = Field(default=None, description="route B's text")
    current: str | None = Field(default=None, description="the text the set holds now")
    choices: list[Choice] = Field(default_factory=lambda: ["keep"], description="what may be chosen for this flag")
    equations: int = Field(default=0, ge=0, description="display equations in the current text")
    choice: Choice | None = Field(default=None, description="A, B, keep, source (a passage of the sheet) or note; "
                                                            "empty leaves the flag open")
    passage: str = Field(default="", description="with 'source': the passage of the sheet, copied exactly")
    note: str = Field(default="", description="with 'note': what is wrong with one display equation")
    equation: int | None = Field(default=None, ge=1, description="with 'note': which display equation (1 = the first)")

    @model_validator(mode="after")
    def _what_the_choice_needs(self) -> "ReviewEntry":
        if self.choice == "source" and not self.passage.strip():
            raise ValueError(f"flag {self.flag}: 'source' needs the passage of the sheet")
        if self.choice == "note" and not self.note.strip():
            raise ValueError(f"flag {self.flag}: 'note' needs the note")
        return self


class ReviewForm(BaseModel):
    """The review of one run: one entry per open flag (the UI's form, the command line's
    questions, or a ``--decisions`` file). ``set_name`` names the set reviewed."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"description": (
        "The flags of this run a person must read, one entry each.")})

    set_name: str = Field(default="", description="the set reviewed")
    entries: list[ReviewEntry] = Field(default_factory=list, description="one entry per open flag")


MAX_DECISION_TEXT = 100_000
"""Longest passage or note a decision may give, in characters: a passage is a quote of one
field of the sheet and a note a sentence, and each decision, refused ones too, is recorded in
``review.json`` (itself bounded: :data:`tasks.convert.bounds.MAX_SAVED_BYTES`)."""


class DecisionInput(BaseModel):
    """One choice as a ``--decisions`` file gives it: ``{"flag": 3, "choice": "B"}``,
    ``{"flag": 4, "choice": "note", "note": "…", "equation": 1}``, ``{"flag": 5, "choice":
    "source", "passage": "…"}``; fields as in :class:`ReviewEntry`."""

    model_config = ConfigDict(extra="forbid")

    flag: int = Field(ge=1, strict=True)  # 3, never true or 3.0
    choice: Choice
    passage: str = Field(default="", max_length=MAX_DECISION_TEXT)
    note: str = Field(default="", max_length=MAX_DECISION_TEXT)
    equation: int | None = Field(default=None, ge=1, strict=True)


class DecisionsFile(BaseModel):
    """A ``--decisions`` file: ``{"decisions": [...]}`` or a bare list of :class:`DecisionInput`."""

    decisions: list[DecisionInput]

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data):
        return {"decisions": data} if isinstance(data, list) else data


class NoteReply(BaseModel):
    """The model's reply to an equation note: ``latex`` the whole corrected expression (no
    ``$$``), or ``None`` when the note is too ambiguous to apply, with ``reason`` saying why
    (or what was changed)."""

    latex: str | None = None
    reason: str = ""

    @field_validator("latex", mode="before")
    @classmethod
    def _blank_is_none(cls, value):
        return None if isinstance(value, str) and not value.strip() else value


class NoteOutcome(BaseModel):
    """What became of one equation note.

    ``accepted``: the correction rendered and changed only what the note points at;
    ``latex`` the corrected expression (set when accepted, and when refused after a reply,
    to show what was refused); ``reason`` one line (the model's when it answered
    ambiguous, the refusal's otherwise); ``text`` the whole field with the equation
    replaced (accepted only); ``raw`` the model's last reply; ``backend``/``model`` who
    answered; ``usage`` tokens and cost of the call.
    """

    accepted: bool = False
    latex: str | None = None
    reason: str = ""
    text: str | None = None
    raw: str = ""
    backend: str = ""
    model: str = ""
    usage: Usage = Field(default_factory=Usage)


class Decision(BaseModel):
    """One decision, as recorded in ``review.json``.

    ``at`` when it was made (UTC, timezone-aware); ``flag`` the flag's number, ``field``
    and ``kind`` its field and kind; ``choice`` what was chosen, with ``passage`` /
    ``note`` / ``equation`` as given; ``resolved``: the flag is closed by it (else it stays
    open, ``reason`` saying why: a passage not verbatim, an ambiguous or refused note);
    ``before`` the field's text before and ``text`` after (``None`` for a flag on no text
    field); ``corrected_by_note``: the text holds words that are not a quote of the sheet,
    written from a person's note; ``outcome`` the note call's details.
    """

    at: datetime
    flag: int
    field: str
    kind: str
    choice: Choice
    passage: str = ""
    note: str = ""
    equation: int | None = None
    resolved: bool
    reason: str = ""
    before: str | None = None
    text: str | None = None
    corrected_by_note: bool = False
    outcome: NoteOutcome | None = None

    @field_validator("at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None or value.utcoffset().total_seconds() != 0:
            raise ValueError("a decision's time must be UTC")
        return value


class ReviewLog(BaseModel):
    """``review.json``: the one record of a person's decisions on this output folder's run,
    at most one per flag (a second decision on a flag replaces the first:
    :func:`tasks.review.apply.merged`), in the order the set is rebuilt in; ``source`` and
    ``set_name`` as in :class:`SettledRecord`."""

    source: str
    set_name: str
    decisions: list[Decision] = Field(default_factory=list)


class ReviewSummary(BaseModel):
    """The review's counts in ``report.json``: ``flags`` of the run, ``resolved`` by a
    decision, ``open`` still (``open_by_kind`` by kind), ``decisions`` recorded,
    ``corrected_by_note`` the fields whose text was written from a person's note (the one
    place the set holds words that are not a quote of the sheet)."""

    flags: int = 0
    resolved: int = 0
    open: int = 0
    open_by_kind: dict[str, int] = Field(default_factory=dict)
    decisions: int = 0
    corrected_by_note: list[str] = Field(default_factory=list)


class ReviewResult(BaseModel):
    """What applying a review did: ``decisions`` made now (also recorded in ``review.json``),
    ``summary`` the counts over every decision recorded, ``files`` the output folder's
    entries after publishing, ``katex_warnings`` the rebuilt set's count."""

    decisions: list[Decision] = Field(default_factory=list)
    summary: ReviewSummary = Field(default_factory=ReviewSummary)
    files: list[str] = Field(default_factory=list)
    katex_warnings: int = 0
