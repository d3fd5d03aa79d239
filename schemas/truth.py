"""The truth score: a built set measured against a hand-counted ``truth.json``.

``truth.json`` (``../shared/corpus/layouts/README.md``) lists a sheet's questions as the
sheet numbers them, each with the first words of its main text and its parts (label,
first words, whether the sheet gives a final answer or a worked solution, how many
multiple-choice options). :mod:`tasks.check.truth` scores a build against it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

from schemas.flags import POINTING  # noqa: F401  (re-exported: the strict rule's kinds)

MissKind = Literal[
    "question_missing",
    "part_missing",
    "parts_count",
    "solution_missing",
    "false_attachment",
    "options",
    "solution_restated",
    "spurious",
    "markup",
]
"""What a miss is:

- ``question_missing``: no built question holds the truth question's first words;
- ``part_missing``: the matched question holds no part with the truth part's first words;
- ``parts_count``: the matched question has another number of parts than the sheet
  (for a question with no separate parts: more than one built part);
- ``solution_missing``: the sheet gives an answer or a worked solution, the part has none;
- ``solution_restated``: the part's solution opens with the part's own prompt (its first
  40 folded characters, 20 at least): the question restated, not its solution;
- ``false_attachment``: the part has an answer or worked solution the sheet does not give;
- ``options``: a multiple-choice part built with another number of options;
- ``spurious``: a built question matching no question of the sheet;
- ``markup``: one piece of pandoc or LaTeX markup left at a line start of a field (counted,
  but not a misread a flag must point at: ``../shared/tools/truthscore.py`` lists it apart).
"""

PointedBy = Literal["question", "neighbour", "lines"]
"""What points a person at a miss (the strict rule of ``../shared/tools/truthscore.py``,
``judge_flags``; only a flag of a :data:`schemas.flags.POINTING` kind points): a flag on the built question
it concerns, a flag on a built question next to where a missing or spurious question sits,
or, for a missing question, a flag naming lines of the sheet (``source:LINE``,
``solutions:FIRST-LAST``). A sheet-wide flag (``source:conversion``, ``set``) points at nothing."""

class TruthMiss(BaseModel):
    """One way a build differs from the truth.

    ``question``: the truth question's number (``"3"``, ``"Kinematics 1"``), ``None`` for
    a spurious question or markup in one; ``part``: the truth part's label as the truth
    writes it (``""`` for a question with no separate parts), ``None`` when the miss
    concerns the whole question; ``built``: the 1-based built question concerned (the
    ``N`` of a flag's ``qN``), ``None`` when no built question is; ``detail``: one line for
    a person; ``pointed_by``: what flag points at it, ``None`` when none does (silent).
    """

    kind: MissKind
    question: str | None = None
    part: str | None = None
    built: int | None = None
    detail: str = ""
    pointed_by: PointedBy | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def silent(self) -> bool:
        """True when no flag of the run points at this misread (markup is not a misread)."""
        return self.pointed_by is None and self.kind != "markup"


class TruthCounts(BaseModel):
    """The numbers of one set, or summed over several (totals).

    ``questions``/``parts``/``solutions``/``mc``: in the truth (``solutions``: parts the
    sheet gives an answer or worked solution for; ``mc``: multiple-choice parts);
    ``*_right``: of those, right in the build (``questions_found``: matched at all);
    ``false_attachments``, ``spurious_questions``, ``markup_leaks``: counts of those
    misses; ``silent_misreads``: misreads no flag points at (the strict rule, :data:`PointedBy`),
    ``silent_by_kind`` by :data:`MissKind`; ``sets``/``exact``/``failed``: sets counted, sets
    scoring exact, sets whose conversion failed.

    The flags of the run (``../shared/tools/truthscore.py``'s ``judge_flags``): ``flags`` all of
    them; ``false_alarms`` those naming a built question the truth finds wholly right;
    ``sheet_flags`` those naming no question and no lines of the sheet (``source:conversion``,
    ``set``: sheet-wide, pointing at nothing); ``fields`` the set's fields as ``report.json``
    counts them (the measure the noise target is set against: false alarms plus sheet-wide flags
    at most one per 20 fields).
    """

    sets: int = 0
    failed: int = 0
    exact: int = 0
    questions: int = 0
    questions_found: int = 0
    questions_right: int = 0
    parts: int = 0
    parts_right: int = 0
    solutions: int = 0
    solutions_right: int = 0
    mc: int = 0
    mc_right: int = 0
    false_attachments: int = 0
    spurious_questions: int = 0
    markup_leaks: int = 0
    silent_misreads: int = 0
    fields: int = 0
    flags: int = 0
    false_alarms: int = 0
    sheet_flags: int = 0
    silent_by_kind: dict[str, int] = Field(default_factory=dict)

    def __add__(self, other: "TruthCounts") -> "TruthCounts":
        kinds = dict(self.silent_by_kind)
        for k, v in other.silent_by_kind.items():
            kinds[k] = kinds.get(k, 0) + v
        summed = {
            name: getattr(self, name) + getattr(other, name)
            for name in type(self).model_fields
            if name != "silent_by_kind"
        }
        return TruthCounts(**summed, silent_by_kind=dict(sorted(kinds.items())))


class TruthScore(BaseModel):
    """One set scored against its truth: its counts (``sets`` 1), its misses, and
    ``error``, the one line saying why the set was not built (then every truth question
    is a silent ``question_missing``)."""

    set: str
    counts: TruthCounts
    misses: list[TruthMiss] = Field(default_factory=list)
    error: str | None = None
