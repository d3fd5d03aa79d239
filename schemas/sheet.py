"""The set as both routes read it: questions, parts and their fields.

Route A's reply and route B's filter output share this shape: a JSON list of
``{title, main_text, parts: [{content, options, answer, worked_solution}]}``.
Field keys are 1-based: ``q2.title``, ``q2.main_text``, ``q2.p1.content``,
``q2.p1.answer``, ``q2.p1.worked_solution``, ``q5.p3.options[2]``.
"""

from __future__ import annotations

import re

from typing import NamedTuple, Iterator

from pydantic import BaseModel, ConfigDict, Field, RootModel, model_serializer, model_validator

PART_FIELDS = ("content", "answer", "worked_solution")
"""The text fields of a part, in the order the platform shows them."""


class Part(BaseModel):
    """One part of a question.

    ``content`` is the part's own text (empty for a question with no sub-questions),
    ``options`` the multiple-choice options in sheet order (not repeated in ``content``),
    ``answer`` the final answer and ``worked_solution`` the worked solution, all markdown
    with maths as ``$…$`` / ``$$…$$``.

    ``correct`` holds the 0-based indices into ``options`` of the options the source marks
    correct (a task-list item ``- [x] option``, exam class ``\\CorrectChoice``); empty when
    the part is not multiple choice or the source does not say. Several indices mean
    several correct options. An index is never outside ``options``; an empty list is left
    out when the part is serialised.
    """

    model_config = ConfigDict(extra="forbid")

    content: str = ""
    options: list[str] = Field(default_factory=list)
    answer: str = ""
    worked_solution: str = ""
    correct: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _correct_within_options(self) -> "Part":
        bad = [i for i in self.correct if not 0 <= i < len(self.options)]
        if bad:
            raise ValueError(f"correct option indices {bad} outside the {len(self.options)} options")
        return self

    @model_serializer(mode="wrap")
    def _without_empty_correct(self, handler):
        # an empty ``correct`` is left out, so readings and replies saved before the
        # field existed serialise as they did
        data = handler(self)
        if isinstance(data, dict) and not data.get("correct"):
            data.pop("correct", None)
        return data

    def is_empty(self) -> bool:
        """True when the part has no text in any field."""
        return not (self.content.strip() or self.answer.strip() or self.worked_solution.strip() or self.options)


class Question(BaseModel):
    """One question: a title, a main text and its parts (markdown)."""

    model_config = ConfigDict(extra="forbid")

    title: str = ""
    main_text: str = ""
    parts: list[Part] = Field(default_factory=list)

    def normalised_parts(self) -> list[Part]:
        """The parts, where a question with one empty part has none.

        A question with no parts and a question with one empty part are the same set
        on the platform (issue 2, tier 1).
        """
        if len(self.parts) == 1 and self.parts[0].is_empty():
            return []
        return list(self.parts)


class SheetSet(RootModel[list[Question]]):
    """A whole reading of a sheet: the list of its questions, in order (``.root``).

    ``len()`` and indexing reach the questions; iterate over ``.root`` (pydantic's own
    ``__iter__`` is kept, as Prefect walks models through it when resolving task inputs).
    """

    def __len__(self) -> int:
        return len(self.root)

    def __getitem__(self, i: int) -> Question:
        return self.root[i]

    def n_parts(self) -> int:
        """Number of parts over all questions (a question with no parts counts as one part)."""
        return sum(max(1, len(q.normalised_parts())) for q in self.root)


class PartKey(NamedTuple):
    """A question, or a part of one, by 0-based indices; written 1-based as ``q2`` / ``q2.p1``.

    The one place keys are built (:meth:`__str__`, :meth:`field`) and read (:meth:`parse`);
    flags, saved answer-box replies and reports name parts this way.
    """

    question: int
    part: int | None = None

    def __str__(self) -> str:
        return f"q{self.question + 1}" + (f".p{self.part + 1}" if self.part is not None else "")

    def field(self, name: str, option: int | None = None) -> str:
        """The key of one of its fields: ``q2.p1.answer``, ``q5.p3.options[2]`` (``option`` 0-based)."""
        return f"{self}.{name}" + (f"[{option + 1}]" if option is not None else "")

    @classmethod
    def parse(cls, text: str) -> "PartKey":
        """``q2`` or ``q2.p1`` (1-based, no leading zeros) as a key; raises ``ValueError`` otherwise."""
        m = _PART_KEY.fullmatch(text)
        if not m:
            raise ValueError(f"{text!r} is not a part key like q2.p1")
        return cls(int(m[1]) - 1, int(m[2]) - 1 if m[2] else None)


_PART_KEY = re.compile(r"q([1-9]\d*)(?:\.p([1-9]\d*))?")


def field_key(q: int, name: str, p: int | None = None, option: int | None = None) -> str:
    """The 1-based key of a field: ``q2.main_text``, ``q2.p1.answer``, ``q5.p3.options[2]``.

    ``q``, ``p`` and ``option`` are 0-based indices; the key is 1-based (:class:`PartKey`).
    """
    return PartKey(q, p).field(name, option)


def iter_fields(questions: SheetSet | list[Question]) -> Iterator[tuple[str, str]]:
    """Every field of a reading as ``(key, text)``, titles included, in document order.

    Options are yielded one per option (``q5.p3.options[2]``).
    """
    items = questions.root if isinstance(questions, SheetSet) else questions
    for qi, q in enumerate(items):
        yield field_key(qi, "title"), q.title
        yield field_key(qi, "main_text"), q.main_text
        for pi, part in enumerate(q.normalised_parts()):
            yield field_key(qi, "content", pi), part.content
            for oi, option in enumerate(part.options):
                yield field_key(qi, "options", pi, oi), option
            yield field_key(qi, "answer", pi), part.answer
            yield field_key(qi, "worked_solution", pi), part.worked_solution
