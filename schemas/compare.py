"""A PDF's pages compared with its OCR markdown (the ``compare`` check, :mod:`tasks.pages`).

The model reads a few rendered pages beside the markdown Mathpix made of them and answers
:class:`CompareReply`: one :class:`Finding` per place where the markdown says something else
than the page. The check keeps them as :class:`Found` (with the crop of the page around
each), and the run's report counts them per document and page (:class:`CompareSummary`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

from schemas.routes import Usage
from schemas.status import StageStatus

Document = Literal["questions", "solutions"]

MAX_SPAN = 400
"""Longest ``ocr_text`` / ``page_text`` of a finding, in characters: a finding names the one
place that differs (a number, a symbol, a short formula), never a paragraph."""

MAX_FINDINGS = 50
"""Most findings one reply may hold (a few pages of a sheet; more is not a reading)."""


class Finding(BaseModel):
    """One difference between a page and the OCR's markdown, as the model states it.

    ``page``: the PDF's page (1-based) that shows it; ``ocr_text``: the markdown's text
    there, a verbatim span of the markdown (checked: :func:`tasks.pages.ask.parse_reply`);
    ``page_text``: what the page shows there, written the way the markdown writes it;
    ``kind``: a few words saying what differs (``digit dropped``, ``minus lost``,
    ``subscript moved``); ``box``: where on the page, optionally, as fractions of the page's
    width and height ``[x0, y0, x1, y1]`` (used to crop the page when its text layer cannot
    locate the finding).
    """

    model_config = ConfigDict(extra="ignore")

    page: int = Field(ge=1, description="the PDF's page (1-based) that shows the difference")
    ocr_text: str = Field(min_length=1, max_length=MAX_SPAN,
                          description="the markdown's text at the difference, copied exactly from the markdown")
    page_text: str = Field(max_length=MAX_SPAN,
                           description="what the page shows there, written as the markdown would write it")
    kind: str = Field(min_length=1, max_length=80, description="a few words: digit dropped, minus lost, ...")
    box: list[float] | None = Field(default=None, description="optional [x0, y0, x1, y1], fractions of the page")

    @field_validator("box")
    @classmethod
    def _fractions(cls, v: list[float] | None) -> list[float] | None:
        if v is None:
            return None
        if len(v) != 4 or not all(0.0 <= x <= 1.0 for x in v) or v[0] >= v[2] or v[1] >= v[3]:
            return None  # a box that is no box is dropped (it only places a crop), not refused
        return v


class CompareReply(BaseModel):
    """The model's reply for one call: every difference it found on the pages sent (an empty
    list when the markdown reads as the pages do)."""

    findings: list[Finding] = Field(default_factory=list, max_length=MAX_FINDINGS)


class Found(BaseModel):
    """A finding kept: the document it is in, its page, both readings and its kind, and
    ``crop``, the file name (under the run's ``pages/``) of the page cropped around it."""

    document: Document
    page: int
    ocr_text: str
    page_text: str
    kind: str
    crop: str = ""


class DocumentCheck(BaseModel):
    """One PDF's check: ``document`` and its file ``name``; ``pages`` compared; ``state``
    (``ran``, ``replayed``, ``cached``, ``skipped``, ``failed``); ``calls`` made live;
    ``usage`` their tokens and cost; ``by_page`` findings per page (every page compared,
    0 included)."""

    document: Document
    name: str
    pages: int = 0
    state: str = ""
    calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    by_page: dict[str, int] = Field(default_factory=dict)


class CompareResult(BaseModel):
    """The compare stage's outcome for a sheet's PDFs.

    ``status``: ran / replayed / cached (every call answered), skipped (no reply to be had:
    no model and no saved ``compare.json``, or a backend that sends no images), failed (a
    reply that does not validate, a call that failed, a PDF that cannot be rendered: then
    ``findings`` is empty, nothing half kept); ``documents`` each PDF's check; ``findings``
    kept; ``crops`` their page crops by file name (PNG bytes); ``saved`` every reply had, as
    ``compare.json`` holds them (``{document: {"p1-4": reply}}``, a reply that parses as JSON
    kept as JSON, else as its text).
    """

    status: StageStatus
    documents: list[DocumentCheck] = Field(default_factory=list)
    findings: list[Found] = Field(default_factory=list)
    crops: dict[str, bytes] = Field(default_factory=dict)
    saved: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @property
    def usage(self) -> Usage:
        """Tokens and cost of every call, all documents."""
        return sum((d.usage for d in self.documents), Usage())

    @property
    def calls(self) -> int:
        return sum(d.calls for d in self.documents)

    def raw(self) -> str | None:
        """``compare.json`` as a run saves it (``None`` when no reply was had)."""
        return json.dumps(self.saved, indent=1, ensure_ascii=False) if self.saved else None


class CompareSummary(BaseModel):
    """``report.json``'s ``compare``: the stage's ``status`` and ``reason``, each document's
    check (pages, calls, tokens, cost, findings per page), and the ``ocr`` flags it raised."""

    status: str
    reason: str = ""
    documents: list[DocumentCheck] = Field(default_factory=list)
    flags: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pages(self) -> int:
        return sum(d.pages for d in self.documents)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def calls(self) -> int:
        return sum(d.calls for d in self.documents)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def findings(self) -> int:
        return sum(sum(d.by_page.values()) for d in self.documents)
