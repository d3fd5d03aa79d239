"""The filter writer's record: the route B filters a model wrote for a sheet, and the one kept."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schemas.llm import LLMReply
from schemas.routes import Usage
from schemas.sheet import SheetSet


class FilterAttempt(BaseModel):
    """One written filter and how it did when run at once in the sandbox.

    ``source`` is the Lua source taken from the reply (a code fence stripped);
    ``outcome`` is ``ok`` when the filter ran over every document it was written from
    and read at least one question, else ``failed`` with ``reason`` (one line, e.g.
    "filter breaks a sandbox rule: os is not available"). For an ``ok`` filter,
    ``not_verbatim`` maps each field key that fails the verbatim check
    (:func:`tasks.settle.verbatim.not_verbatim`) to its missing paragraphs, ``coverage`` is the
    share (0..1) of the documents' counted lines the reading accounts for
    (:func:`tasks.settle.coverage.coverage`) and ``questions`` the number of questions read.
    ``usage`` is the model call's tokens and cost.
    """

    source: str
    outcome: Literal["ok", "failed"]
    reason: str = ""
    not_verbatim: dict[str, list[str]] = Field(default_factory=dict)
    coverage: float = 0.0
    questions: int = 0
    usage: Usage = Field(default_factory=Usage)


class FilterWriting(BaseModel):
    """The outcome of :func:`tasks.read.filter_writer.write_filter`.

    ``source`` is the filter kept (the best ``ok`` attempt: fewest fields not verbatim,
    then most coverage, then the earliest); ``chosen`` its 0-based index in
    ``attempts`` (every attempt, in order); ``reading`` the set it read from the
    documents (questions and solutions merged by position); ``usage`` the sum over
    every reply had; ``replies`` those replies, in order.
    """

    source: str
    chosen: int
    attempts: list[FilterAttempt]
    reading: SheetSet
    usage: Usage = Field(default_factory=Usage)
    replies: list[LLMReply] = Field(default_factory=list)
