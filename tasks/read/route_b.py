"""Route B: a pandoc Lua filter reads the set from the markdown.

The filter (a model-written one, or one of the library filters in
``filters/library/``) runs in the sandbox (:mod:`tasks.read.sandbox`) once over the questions
document (role ``questions``) and, when there is one, once over the solutions document
(role ``solutions``); the two readings are merged by position.
"""

from __future__ import annotations

from schemas.llm import BackendSpec
from schemas.status import Cause, StageStatus, State
from schemas.routes import RouteResult, Usage
from schemas.sheet import Part, Question, SheetSet
from tasks.settle.coverage import coverage, field_texts, is_timing
from tasks.errors import FilterError
from tasks.read.sandbox import FILTERS_DIR, run_filter

LIBRARY_DIR = FILTERS_DIR / "library"


def library_filters() -> dict[str, str]:
    """The library filters: file stem (``mathpix``, ``latex``) → Lua source, by name."""
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(LIBRARY_DIR.glob("*.lua"))}


def merge_by_position(questions: SheetSet, solutions: SheetSet | None) -> SheetSet:
    """The questions reading with the solutions reading's answers merged in by position.

    Part j of question i gets the ``answer`` and ``worked_solution`` of part j of
    solution question i (each only when the solution's field is not empty). A question
    with fewer parts than its solution gets parts with empty content appended (so a
    question with no parts gets one part with empty content); a solution question beyond
    the last question is appended as a question with an empty title and main text.
    Returns a new :class:`SheetSet`; neither input is changed. ``solutions=None`` gives a
    copy of ``questions``.
    """
    out = questions.model_copy(deep=True)
    if solutions is None:
        return out
    for i, sq in enumerate(solutions.root):
        if i >= len(out.root):
            out.root.append(Question())
        q = out.root[i]
        for j, sp in enumerate(sq.parts):
            if not (sp.answer or sp.worked_solution):
                continue
            while j >= len(q.parts):
                q.parts.append(Part())
            if sp.answer:
                q.parts[j].answer = sp.answer
            if sp.worked_solution:
                q.parts[j].worked_solution = sp.worked_solution
    return out


def run_route_b(
    filter_source: str,
    questions_md: str,
    solutions_md: str | None,
    *,
    timeout: float = 20.0,
    memory_bytes: int = 1 << 30,
    name: str = "filter",
) -> SheetSet:
    """Route B's reading of a sheet: ``filter_source`` over ``questions_md`` (role
    ``questions``) and, when given, over ``solutions_md`` (role ``solutions``), merged
    with :func:`merge_by_position`.

    ``timeout`` (seconds) and ``memory_bytes`` bound each filter run. Raises
    :class:`FilterError` when either run fails (see :func:`tasks.read.sandbox.run_filter`).
    """
    limits = dict(timeout=timeout, memory_bytes=memory_bytes, name=name)
    questions = run_filter(filter_source, questions_md, "questions", **limits)
    if solutions_md is None:
        return questions
    solutions = run_filter(filter_source, solutions_md, "solutions", **limits)
    return merge_by_position(questions, solutions)


def chrome_quoted(texts: list[str]) -> int:
    """How many lines of ``texts`` are timing or star lines or ``Generated:`` stamps:
    chrome a reading should have left out."""
    return sum(
        1
        for text in texts
        for line in text.splitlines()
        if line.strip() and (is_timing(line) or line.strip().startswith("Generated:"))
    )


def score_reading(markdown: str, reading: SheetSet) -> float:
    """How well a reading accounts for ``markdown``: its :func:`tasks.settle.coverage.coverage`
    less, per counted line, the chrome lines it copied (:func:`chrome_quoted`).
    A reading that copies timing lines into its fields has not understood the layout."""
    texts = field_texts(reading)
    counted = max(1, sum(1 for line in markdown.splitlines() if line.strip()))
    return coverage(markdown, texts) - chrome_quoted(texts) / counted


def choose_library_filter(questions_md: str, solutions_md: str | None) -> tuple[str, str]:
    """The library filter that accounts for most of the questions document: ``(name,
    source)``.

    Each library filter is run over the questions document alone (role ``questions``)
    and scored with :func:`score_reading`; a filter that fails, or finds no question,
    scores zero. On equal scores the solutions document decides (when given), then the
    name. Raises :class:`FilterError` only when there is no library filter at all.
    """
    filters = library_filters()
    if not filters:
        raise FilterError("no library filter found in filters/library")
    scored: list[tuple[float, float, str]] = []
    for name, source in filters.items():
        try:
            reading = run_filter(source, questions_md, "questions", name=name)
            score = score_reading(questions_md, reading) if len(reading) else 0.0
        except FilterError:
            score = 0.0
        scored.append((score, 0.0, name))
    best = max(s for s, _, _ in scored)
    tied = [n for s, _, n in scored if s == best]
    if len(tied) > 1 and solutions_md is not None:
        rescored = []
        for name in tied:
            try:
                reading = run_filter(filters[name], solutions_md, "solutions", name=name)
                rescored.append((score_reading(solutions_md, reading), name))
            except FilterError:
                rescored.append((0.0, name))
        top = max(s for s, _ in rescored)
        tied = [n for s, n in rescored if s == top]
    name = sorted(tied)[0]
    return name, filters[name]
