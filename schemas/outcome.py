"""What a document run hands back to its caller (the CLI, the folder flow)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemas.export import Comparison
from schemas.flags import Flag
from schemas.report import Report
from schemas.review import ReviewSummary


class DocumentOutcome(BaseModel):
    """The result of one document run.

    ``error`` is the one-line reason when the run could not build a set (bad input); then
    ``report`` is ``None`` and nothing was written. ``out`` is the output folder; ``files``
    the entries written into it; ``flags`` and ``comparison`` what was written in
    ``flags.json`` and ``comparison.json`` (a folder run reads them here, not from disk);
    ``task_states`` each stage's final state name (``Completed``, ``Cached``, …).
    """

    source: str
    out: str
    error: str | None = None
    report: Report | None = None
    files: list[str] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    comparison: Comparison | None = None
    task_states: dict[str, str] = Field(default_factory=dict)
    route_failed: str = ""
    """When a live route failed after its retries and the set was built from the other
    route alone: one line saying so (the command then exits 2); empty otherwise."""
    offline_refused: str = ""
    """When an ``--offline`` run lacked a saved reply a live call would have given (route A,
    adjudication, answer boxes in a saved ``areas.json``): one line naming them; the set was
    built from what was saved (the command then exits 2, as for a failed route); empty otherwise."""
    compare_failed: str = ""
    """When the compare check of a PDF's pages failed (a reply that does not validate, a call
    or a render that failed): its one line (the command then exits 2); empty otherwise."""
    review: ReviewSummary | None = None
    """With ``review`` on, once a person's decisions were applied in the run: flags resolved
    and still open (as ``report.json``'s ``review``); ``None`` otherwise."""
    review_lines: list[str] = Field(default_factory=list)
    """With ``review`` on: what the review did (paused and answered, nothing open, timed
    out with the flags left open, a decision refused)."""
