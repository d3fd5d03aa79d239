"""Flags: the fields a person must read (tier 3)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, computed_field

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
]


POINTING = frozenset({"structure", "structural", "uncovered", "disputed", "not_verbatim", "conversion_loss",
                      "stray_minus"})
"""The flag kinds that doubt a field's text or structure, so may point at a misread
(``../shared/tools/truthscore.py``'s ``POINTING``): a ``katex`` or ``area`` flag says
nothing about whether a part or a solution was read into the right place."""


Choice = Literal["A", "B", "keep", "source", "note"]
"""What a person may decide for a flag:

- ``A`` / ``B``: the field takes route A's / route B's text as the flag shows it;
- ``keep``: the field keeps the text the set holds now (the flag is read and accepted);
- ``source``: the field takes ``passage``, which must be a whole verbatim quote of the
  sheet's markdown (:mod:`tasks.settle.verbatim`), else the choice is refused;
- ``note``: ``note`` describes one change to one display equation of the field; one
  model call turns it into corrected LaTeX (:mod:`tasks.review.notes`), refused unless it
  renders and changes only what the note points at.
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
}
"""The choices that can settle a flag of each kind, before what its field allows is known
(:attr:`Flag.choices`): a route's text only where the routes' texts are the flag's ``a`` and
``b``; no passage or note where the flag names lines in no field (``uncovered``: they stay
out, or the person adds them where they belong) or an answer box (``area``: added on the
platform, or the part read again with a model)."""


ROUTE_TEXT_KINDS = frozenset({"disputed", "not_verbatim"})
"""The kinds whose ``a`` and ``b`` are the two routes' texts for the field (so a person may
take either). Every other kind's ``a`` is the passage the flag is about (a maths span KaTeX
cannot render, a command nobody defines, lines in no field, the field's text)."""


_TEXT_FIELD = re.compile(r"^q\d+(?:\.p\d+)?\.(?:title|main_text|content|answer|worked_solution|options\[\d+\])$")


class Flag(BaseModel):
    """One field (or passage) a person must read.

    ``field`` is a 1-based field key (``q2.p1.worked_solution``), a part (``q2.p1``, for an
    answer box refused: kind ``area``) or, for a passage in no field, ``source:LINE`` /
    ``solutions:LINE``; for the kinds in :data:`ROUTE_TEXT_KINDS` ``a`` and ``b`` are the
    two routes' texts where they exist, for the others ``a`` is the passage the flag is about.
    """

    field: str
    kind: FlagKind
    reason: str
    a: str | None = None
    b: str | None = None

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
            out = [c for c in out if c not in ("source", "note")]
        return out
