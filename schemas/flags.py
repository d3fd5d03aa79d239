"""Flags: the fields a person must read (tier 3)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, computed_field, model_serializer

FlagKind = Literal[
    "not_verbatim",
    "structural",
    "disputed",
    "stray_minus",
    "uncovered",
    "conversion_loss",
    "area",
    "structure",
    "katex",
    "ocr",
]


POINTING = frozenset({"structure", "structural", "uncovered", "disputed", "not_verbatim", "conversion_loss",
                      "stray_minus"})
"""The flag kinds that doubt a field's text or structure, so may point at a misread
(``../shared/tools/truthscore.py``'s ``POINTING``): a ``katex`` or ``area`` flag says
nothing about whether a part or a solution was read into the right place."""


Choice = Literal["A", "B", "keep", "source", "note", "page"]
"""What a person may decide for a flag:

- ``A`` / ``B``: the field takes route A's / route B's text as the flag shows it;
- ``keep``: the field keeps the text the set holds now (the flag is read and accepted);
- ``source``: the field takes ``passage``, which must be a whole verbatim quote of the
  sheet's markdown (:mod:`tasks.settle.verbatim`), else the choice is refused;
- ``note``: ``note`` describes one change to one display equation of the field; one
  model call turns it into corrected LaTeX (:mod:`tasks.review.notes`), refused unless it
  renders and changes only what the note points at;
- ``page``: on an ``ocr`` flag, the field takes the page's reading in place of the OCR's
  (``b`` in place of ``a``, :mod:`tasks.pages.reading`), refused unless the field holds the
  OCR's reading once and the page's differs from it.
"""

KIND_CHOICES: dict[str, tuple[Choice, ...]] = {
    "disputed": ("A", "B", "keep", "source", "note"),
    "not_verbatim": ("A", "B", "keep", "source", "note"),
    "structural": ("keep", "source"),
    "structure": ("keep", "source", "note"),
    "stray_minus": ("keep", "source", "note"),
    "conversion_loss": ("keep", "source", "note"),
    "katex": ("keep", "source", "note"),
    "uncovered": ("keep",),
    "area": ("keep",),
    "ocr": ("page", "keep", "source", "note"),
}
"""The choices that can settle a flag of each kind, before what its field allows is known
(:attr:`Flag.choices`): a route's text only where the routes' texts are the flag's ``a`` and
``b``; the page's reading only on an ``ocr`` flag; no passage or note where the flag names lines in no field (``uncovered``: they stay
out, or the person adds them where they belong) or an answer box (``area``: added on the
platform, or the part read again with a model)."""


ROUTE_TEXT_KINDS = frozenset({"disputed", "not_verbatim"})
"""The kinds whose ``a`` and ``b`` are the two routes' texts for the field (so a person may
take either). Every other kind's ``a`` is the passage the flag is about (a maths span KaTeX
cannot render, a command nobody defines, lines in no field, the field's text)."""


_TEXT_FIELD = re.compile(r"^q\d+(?:\.p\d+)?\.(?:title|main_text|content|answer|worked_solution|options\[\d+\])$")


class PageSpot(BaseModel):
    """Where on a PDF's page an ``ocr`` flag's finding is: ``document`` (``questions`` or
    ``solutions``), ``page`` (1-based) and ``crop``, the file under the run's ``pages/`` holding
    the page cropped around it (``""`` when none was written)."""

    document: Literal["questions", "solutions"]
    page: int = Field(ge=1)
    crop: str = ""


class Flag(BaseModel):
    """One field (or passage) a person must read.

    ``field`` is a 1-based field key (``q2.p1.worked_solution``), a part (``q2.p1``, for an
    answer box refused: kind ``area``) or, for a passage in no field, ``source:LINE`` /
    ``solutions:LINE``; for the kinds in :data:`ROUTE_TEXT_KINDS` ``a`` and ``b`` are the
    two routes' texts where they exist, for the others ``a`` is the passage the flag is about;
    for ``ocr`` ``a`` is the OCR's reading (a verbatim span of the markdown), ``b`` the page's,
    and ``spot`` where the page shows it (left out of the JSON for every other flag).
    """

    field: str
    kind: FlagKind
    reason: str
    a: str | None = None
    b: str | None = None
    spot: PageSpot | None = None

    @model_serializer(mode="wrap")
    def _without_empty_spot(self, handler):
        # only an ``ocr`` flag has a spot: the others serialise as they did before it existed
        data = handler(self)
        if isinstance(data, dict) and data.get("spot") is None:
            data.pop("spot", None)
        return data

    @property
    def routes(self) -> bool:
        """Whether ``a``/``b`` are the routes' texts (:data:`ROUTE_TEXT_KINDS`)."""
        return self.kind in ROUTE_TEXT_KINDS

    @computed_field  # type: ignore[prop-decorator]
    @property
    def choices(self) -> list[Choice]:
        """The choices that can settle this flag (written into ``flags.json``): those of its
        kind (:data:`KIND_CHOICES`), ``A`` / ``B`` only when the flag holds that route's text,
        ``source`` and ``note`` only on a field's text (not on a question, a part, the set or
        lines of the sheet). The review narrows them once more by the field's text
        (:func:`tasks.review.decisions.choices_for`: a note needs a display equation)."""
        out = list(KIND_CHOICES.get(self.kind, ("keep",)))
        if "A" in out and (not self.routes or self.a is None):
            out.remove("A")
        if "B" in out and (not self.routes or self.b is None):
            out.remove("B")
        if not _TEXT_FIELD.match(self.field):
            out = [c for c in out if c not in ("source", "note", "page")]
        if "page" in out and (self.a is None or self.b is None):
            out.remove("page")
        return out
