"""Which library filter reads a sheet best, when no filter is given or saved: each library
filter (:func:`tasks.read.route_b.library_filters`, the :func:`superseded` ones left out) runs
over the questions document and the reading that accounts for most of it wins
(:func:`tasks.read.route_b.score_reading`), the solutions document breaking ties."""

from __future__ import annotations

from tasks.errors import FilterError
from tasks.read.route_b import library_filters, score_reading, score_solutions
from tasks.read.sandbox import run_filter

SOLUTIONS_MARGIN = 0.01
"""Solutions scores within this of the best stay tied (:func:`choose_library_filter`)."""


def superseded(filter_source: str) -> bool:
    """True when a library filter's first line says ``-- superseded-by: NAME``: it stays in
    the library for whoever names it, but :func:`choose_library_filter` no longer picks it
    (``latex.lua``, whose layouts ``general.lua`` reads with the rest)."""
    return filter_source.lstrip().startswith("-- superseded-by:")


def choose_library_filter(questions_md: str, solutions_md: str | None) -> tuple[str, str]:
    """The library filter (not :func:`superseded`) whose :func:`~tasks.read.route_b.score_reading` of the questions
    document is best: ``(name, source)``; a filter that fails or finds no question scores zero
    (one that runs past its time limit runs once more with a longer one, and is recorded past
    that too: :func:`tasks.read.sandbox.time_limited`).
    Ties: the solutions' :func:`~tasks.read.route_b.score_solutions` (within :data:`SOLUTIONS_MARGIN` they stay tied),
    then the name (``general`` first). Raises :class:`FilterError` only when there is no library
    filter at all."""
    filters = {n: src for n, src in library_filters().items() if not superseded(src)}
    if not filters:
        raise FilterError("no library filter found in filters/library")
    scored: list[tuple[float, float, str]] = []
    for name, source in filters.items():
        try:
            reading = run_filter(source, questions_md, "questions", name=name, patient=True)
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
                reading = run_filter(filters[name], solutions_md, "solutions", name=name, patient=True)
                rescored.append((score_solutions(solutions_md, reading, questions_md), name))
            except FilterError:
                rescored.append((0.0, name))
        top = max(s for s, _ in rescored)
        tied = [n for s, n in rescored if s >= top - SOLUTIONS_MARGIN]
    name = sorted(tied)[0]
    return name, filters[name]
