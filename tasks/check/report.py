"""The per-document report, counted with polars.

Every field outcome and every flag becomes a row; the counts in :class:`schemas.report.Report`
are group-bys over those rows, so the document report and the folder report (issue 4)
count the same way.
"""

from __future__ import annotations

import polars as pl

from schemas.flags import Flag
from schemas.report import Report, RouteSummary
from schemas.tiers import FieldOutcome

TIER_COLUMNS = {"agreed": "agreed", "single": "single_route", "adjudicated": "adjudicated"}


def field_frame(fields: list[FieldOutcome]) -> pl.DataFrame:
    """One row per field: ``field``, ``tier``, ``taken`` (all strings)."""
    return pl.DataFrame(
        {"field": [f.field for f in fields], "tier": [f.tier for f in fields], "taken": [f.taken for f in fields]},
        schema={"field": pl.Utf8, "tier": pl.Utf8, "taken": pl.Utf8},
    )


def flag_frame(flags: list[Flag]) -> pl.DataFrame:
    """One row per flag: ``field``, ``kind``, ``reason``."""
    return pl.DataFrame(
        {"field": [f.field for f in flags], "kind": [f.kind for f in flags], "reason": [f.reason for f in flags]},
        schema={"field": pl.Utf8, "kind": pl.Utf8, "reason": pl.Utf8},
    )


def count_report(
    *,
    fields: list[FieldOutcome],
    flags: list[Flag],
    base: dict,
    route_a: RouteSummary,
    route_b: RouteSummary,
) -> Report:
    """Build the :class:`Report` from field outcomes and flags.

    ``fields`` counts exclude empty fields; ``flagged`` counts distinct fields with at
    least one flag; ``flags_by_kind`` counts flags. ``base`` holds the remaining counts
    (source, questions, parts, tokens, seconds, comparison, ...).
    """
    ff = field_frame(fields).filter(pl.col("tier") != "empty")
    by_tier = dict(ff.group_by("tier").len().iter_rows())
    fl = flag_frame(flags)
    by_kind = dict(fl.group_by("kind").len().sort("kind").iter_rows())
    return Report(
        **base,
        fields=ff.height,
        agreed=by_tier.get("agreed", 0),
        single_route=by_tier.get("single", 0),
        adjudicated=by_tier.get("adjudicated", 0),
        flagged=fl.select(pl.col("field").n_unique()).item() if fl.height else 0,
        flags_by_kind={str(k): int(v) for k, v in by_kind.items()},
        not_verbatim=by_kind.get("not_verbatim", 0),
        uncovered=by_kind.get("uncovered", 0),
        route_a=route_a,
        route_b=route_b,
    )


def summary_lines(report: Report) -> list[str]:
    """The printed summary: a few aligned lines."""
    comp = report.comparison
    lines = [
        f"set        {report.set_name}: {report.questions} questions, {report.parts} parts, {report.fields} fields",
        f"tiers      agreed {report.agreed}, single-route {report.single_route}, adjudicated {report.adjudicated}, "
        f"flagged {report.flagged} fields",
        "flags      " + (", ".join(f"{k} {v}" for k, v in report.flags_by_kind.items()) or "none"),
        f"checks     not verbatim {report.not_verbatim}, uncovered {report.uncovered}, KaTeX warnings {report.katex_warnings}",
        f"routes     A: {report.route_a.status}{(' (' + report.route_a.reason + ')') if report.route_a.reason else ''}; "
        f"B: {report.route_b.status}{(' (' + report.route_b.reason + ')') if report.route_b.reason else ''}",
        f"usage      {report.input_tokens} tokens in, {report.output_tokens} out, ${report.cost_usd:.4f}; {report.seconds:.1f} s",
    ]
    if comp is not None:
        lines.append(
            f"export     {comp.get('fields_compared', 0)} fields compared: {comp.get('equal', 0)} equal, "
            f"{comp.get('notation', 0)} notation-only, {comp.get('content', 0)} content differences"
        )
    ar = report.areas
    lines.append(
        f"boxes      {ar.status}: {ar.parts} answerable parts, {ar.calls} calls; {ar.proposed} proposed, "
        f"{ar.refused} refused, {ar.written} written"
    )
    if ar.in_export is not None:
        lines.append(f"score      {ar.matched} of {ar.in_export} answer boxes of the export matched")
        for m in ar.misses:
            lines.append(f"miss       {m.part}: wanted {m.wanted}; made {m.made}")
    for w in report.warnings:
        lines.append(f"warning    {w}")
    return lines
