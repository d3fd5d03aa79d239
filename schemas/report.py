"""The per-document report."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemas.areas import AreasSummary
from schemas.compare import CompareSummary
from schemas.review import ReviewSummary


class RouteSummary(BaseModel):
    """What a route did: ``status`` (ran / replayed / skipped / failed) and why; the
    backend and model that answered, the live calls made, and for route B the filter."""

    status: str
    reason: str = ""
    questions: int = 0
    parts: int = 0
    backend: str = ""
    model: str = ""
    calls: int = 0
    filter: str = ""


class RunInfo(BaseModel):
    """What a document run knows before its stages run, for its report: the files as the
    user named them, the set's name, the backend line (``offline``, ``anthropic, model …``,
    ``none``), the note on how solutions were found, the part keys of a saved
    ``areas.json`` and whether answer boxes are on; ``started`` is the run's start
    (``time.monotonic()`` seconds)."""

    source: str
    solutions: str | None = None
    set_name: str
    backend: str = ""
    solutions_note: str = ""
    saved_area_keys: list[str] = Field(default_factory=list)
    areas: bool = True
    offline: bool = False
    started: float = 0.0


class Counts(BaseModel):
    """The counts of one document run, the same in its ``report.json`` (:class:`Report`) and in
    its row of a folder's report (:class:`schemas.folder.SheetRow`).

    ``questions``/``parts``/``fields``: the set's; ``agreed`` fields the two routes agree on,
    ``single_route`` fields only one route read, ``adjudicated`` fields settled by the
    adjudication call, ``flagged`` fields a person must read; ``not_verbatim`` fields that are
    not quotes of the sheet, ``uncovered`` passages of the sheet no field quotes;
    ``katex_warnings`` maths spans KaTeX refuses; tokens and cost (US dollars) cover every call
    (route A, the filter, adjudication, answer boxes); ``ocr_pages`` the PDF pages Mathpix
    converted for this run (0 from the OCR cache: Mathpix bills per page, at the price of
    the user's plan); ``seconds`` is the run's wall time.
    """

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
    ocr_pages: int = 0
    seconds: float = 0.0


class ReportHead(BaseModel):
    """Which document a :class:`Report` is of: the files as the user named them, the set's name."""

    source: str
    solutions: str | None = None
    set_name: str


class Report(Counts, ReportHead):
    """One document's report (``report.json``): its files (:class:`ReportHead`), its
    :class:`Counts`, flags by kind, what each route did, the adjudication's and the
    backend's lines, the comparison with an export (counts by kind), the answer boxes and
    their score against the export (``areas``), a PDF's pages against its OCR
    (``compare``), and the run's warnings.
    """

    flags_by_kind: dict[str, int] = Field(default_factory=dict)
    route_a: RouteSummary
    route_b: RouteSummary
    adjudication: str = ""
    backend: str = ""
    comparison: dict[str, int] | None = None
    areas: AreasSummary = Field(default_factory=AreasSummary)
    warnings: list[str] = Field(default_factory=list)
    conversion: list[str] = Field(default_factory=list)
    """What the conversion said that concerns no field, one line each (``source: [INFO] Skipped
    '\\RequirePackage{…}' …``): the preamble, packages, page layout, metadata, what it left out
    on purpose (:func:`tasks.settle.tiers.conversion_notes`). Never a flag."""
    metadata: dict[str, str] = Field(default_factory=dict)
    """The questions document's metadata (``title``, ``author``, ``date``, …, plain text); the
    title is also the set's description."""
    compare: CompareSummary | None = None
    """A PDF sheet's pages checked against its OCR (:mod:`tasks.pages`): the check's status,
    each PDF's pages, calls, tokens, cost and findings per page, the ``ocr`` flags raised;
    ``None`` when no PDF was compared (not a PDF, or ``--no-compare``)."""
    review: ReviewSummary | None = None
    """After a person's review (:mod:`tasks.review`): flags resolved and still open, and the
    fields corrected by a person's note; ``None`` until a review was applied."""
