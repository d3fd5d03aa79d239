"""The folder report: one row per sheet, and the totals."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SheetRow(BaseModel):
    """One sheet of a folder run (``report.csv`` / ``report.parquet`` columns).

    ``outcome`` is ``built`` or ``failed`` (``reason`` says why); counts are as in
    :class:`schemas.report.Report`; the comparison columns are ``None`` where the sheet
    has no export; ``new_differences``/``accepted_differences`` split the content
    differences by the folder's ``accepted.txt``. The answer box columns: ``boxes_proposed``
    (in the replies), ``boxes_refused`` (refusals, flagged ``area``), ``boxes_written`` (in
    the set), and where an export exists ``boxes_matched`` of ``boxes_in_export``.
    """

    folder: str = ""
    source: str
    solutions: str | None = None
    outcome: str
    reason: str = ""
    questions: int = 0
    parts: int = 0
    fields: int = 0
    agreed: int = 0
    single_route: int = 0
    adjudicated: int = 0
    flagged: int = 0
    not_verbatim: int = 0
    uncovered: int = 0
    katex_warnings: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    compared: int | None = None
    equal: int | None = None
    notation: int | None = None
    content: int | None = None
    new_differences: int | None = None
    accepted_differences: int | None = None
    boxes_proposed: int = 0
    boxes_refused: int = 0
    boxes_written: int = 0
    boxes_matched: int | None = None
    boxes_in_export: int | None = None


class FolderOutcome(BaseModel):
    """A folder run: its rows, the filter it used, and accepted differences no longer seen."""

    folder: str
    out: str
    filter: str = ""
    rows: list[SheetRow] = Field(default_factory=list)
    stale_accepted: list[str] = Field(default_factory=list)
    skipped_links: list[str] = Field(default_factory=list)
    """One line per symbolic link the run did not follow because it leaves the run's root."""
