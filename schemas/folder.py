"""The folder report: one row per sheet, and the totals."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemas.report import Counts


class RowHead(BaseModel):
    """Which sheet a :class:`SheetRow` is of and how its run ended: ``outcome`` is ``built``
    or ``failed`` (``reason`` says why)."""

    folder: str = ""
    source: str
    solutions: str | None = None
    outcome: str
    reason: str = ""


class SheetRow(Counts, RowHead):
    """One sheet of a folder run (``report.csv`` / ``report.parquet`` columns, in this order):
    :class:`RowHead`, the document's :class:`schemas.report.Counts`, then the comparison
    columns, ``None`` where the sheet has no export (``new_differences``/``accepted_differences``
    split the content differences by the folder's ``accepted.txt``), and the answer box
    columns: ``boxes_proposed`` (in the replies), ``boxes_refused`` (refusals, flagged
    ``area``), ``boxes_written`` (in the set), and where an export exists ``boxes_matched`` of
    ``boxes_in_export``; last ``fresh_stages``, the sheet's cached stages that ran rather than
    being answered by Prefect's cache (0: it did no work but writing its outputs).
    """

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
    fresh_stages: int = 0


class FolderOutcome(BaseModel):
    """A folder run: its rows, the filter it used, and accepted differences no longer seen."""

    folder: str
    out: str
    filter: str = ""
    rows: list[SheetRow] = Field(default_factory=list)
    stale_accepted: list[str] = Field(default_factory=list)
    skipped_links: list[str] = Field(default_factory=list)
    """One line per entry the run did not read (a symbolic link leaving its root, a name not
    UTF-8, an entry named as a sheet that is no regular file: a FIFO, a folder ``x.md``, a
    link to nothing or a loop), naming it and why: the run's output, ``flags.md`` and
    ``report.json``'s ``skipped``."""
