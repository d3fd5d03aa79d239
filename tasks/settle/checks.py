"""Both routes' verbatim checks and their disputes, in one task.

Three small computations that each cost less than a Prefect task run: the verbatim check
of route A's reading, of route B's, and the fields on which the two differ (which go to
adjudication). One task keeps the per-sheet overhead down (issue 9's benchmark).
"""

from __future__ import annotations

from schemas.markdown import SheetText
from schemas.routes import Dispute, RouteChecks, RouteResult
from tasks.cache import stage
from tasks.settle.tiers import disputes
from tasks.settle.verbatim import not_verbatim


def check_routes(a: RouteResult, b: RouteResult, sources: list[str]) -> RouteChecks:
    """The :class:`RouteChecks` of two readings against the markdown ``sources`` they read."""
    return RouteChecks(
        not_verbatim_a=not_verbatim(a.questions, sources) if a.questions is not None else {},
        not_verbatim_b=not_verbatim(b.questions, sources) if b.questions is not None else {},
        disputes=[Dispute(field=f, a=x, b=y) for f, x, y in disputes(a.questions, b.questions)],
    )


@stage("checks", views={"sheet": SheetText.texts})
def checks_task(a: RouteResult, b: RouteResult, sheet: SheetText) -> RouteChecks:
    """:func:`check_routes` as a cached task, keyed by both readings and the sheet's texts."""
    return check_routes(a, b, sheet.sources())
