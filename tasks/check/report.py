"""The per-document report, counted with polars.

Every field outcome and every flag becomes a row; the counts in :class:`schemas.report.Report`
are group-bys over those rows, so the document report and the folder report (issue 4)
count the same way.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.flags import Flag
from schemas.areas import PartBoxes, Score
from schemas.build import BuiltSet
from schemas.compare import CompareResult, CompareSummary
from schemas.export import Comparison
from schemas.markdown import SheetText
from schemas.report import Report, RouteSummary, RunInfo
from schemas.routes import AdjudicationResult, RouteResult, Usage
from schemas.tiers import Settled
from schemas.tiers import FieldOutcome
from tasks.errors import quoted

# polars is imported where it is used, not at import: importing it starts native threads,
# and the warm runner (commandline/warm.py) imports this module before it forks a command.
if TYPE_CHECKING:
    import polars as pl

def field_frame(fields: list[FieldOutcome]) -> pl.DataFrame:
    """One row per field: ``field``, ``tier``, ``taken`` (all strings)."""
    import polars as pl

    return pl.DataFrame(
        {"field": [f.field for f in fields], "tier": [f.tier for f in fields], "taken": [f.taken for f in fields]},
        schema={"field": pl.Utf8, "tier": pl.Utf8, "taken": pl.Utf8},
    )


def flag_frame(flags: list[Flag]) -> pl.DataFrame:
    """One row per flag: ``field``, ``kind``, ``reason``."""
    import polars as pl

    return pl.DataFrame(
        {"field": [f.field for f in flags], "kind": [f.kind for f in flags], "reason": [f.reason for f in flags]},
        schema={"field": pl.Utf8, "kind": pl.Utf8, "reason": pl.Utf8},
    )


def route_summary(r: RouteResult) -> RouteSummary:
    """A route's line in the report."""
    q = r.questions
    return RouteSummary(
        status=r.status.state.value, reason=r.status.reason,
        questions=len(q) if q is not None else 0, parts=q.n_parts() if q is not None else 0,
        backend=r.backend, model=r.model, calls=r.calls, filter=r.filter_label,
    )


def count_report(
    *,
    fields: list[FieldOutcome],
    flags: list[Flag],
    route_a: RouteSummary,
    route_b: RouteSummary,
    **counts: Any,
) -> Report:
    """Build the :class:`Report` from field outcomes and flags.

    ``fields`` counts exclude empty fields; ``flagged`` counts distinct fields with at
    least one flag; ``flags_by_kind`` counts flags. ``counts`` are the report's other
    fields (source, questions, parts, tokens, seconds, comparison, ...), validated by it.
    """
    import polars as pl

    ff = field_frame(fields).filter(pl.col("tier") != "empty")
    by_tier = dict(ff.group_by("tier").len().iter_rows())
    fl = flag_frame(flags)
    by_kind = dict(fl.group_by("kind").len().sort("kind").iter_rows())
    return Report(
        **counts,
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


READ = ("ran", "replayed", "cached")
"""The route statuses under which a route's reading reached the tiers."""


def cross_check_line(report: Report) -> str | None:
    """The summary's first line when fewer than two routes read the sheet: nothing was
    cross-checked, so the set stands on one reading and the flags (the structure audit,
    coverage, verbatim) are all that checked it. ``None`` when both routes read it."""
    read = [name for name, r in (("A", report.route_a), ("B", report.route_b)) if r.status in READ]
    if len(read) == 2:
        return None
    if not read:
        return "NOT CROSS-CHECKED: neither route read this sheet"
    return (f"NOT CROSS-CHECKED: only route {read[0]} read this sheet; no second reading checked it, "
            f"only the flags below did")


def counted(n: int, noun: str) -> str:
    """``1 question``, ``2 questions``."""
    return f"{n} {noun if n == 1 else noun + 's'}"


def summary_lines(report: Report) -> list[str]:
    """The printed summary: a few aligned lines, led by :func:`cross_check_line` when only
    one route (or none) read the sheet. Only what no stage line said (each stage prints its
    own line as it ends: the tiers, the answer boxes, the comparison with the export and the
    score are there): the set, its flags by kind, the checks, the usage, each answer box of
    the export missed, the warnings."""
    kinds = ", ".join(f"{k} {v}" for k, v in report.flags_by_kind.items())
    lines = [line for line in [cross_check_line(report)] if line] + [
        f"set        {report.set_name}: {counted(report.questions, 'question')}, {counted(report.parts, 'part')}, "
        f"{counted(report.fields, 'field')}; "
        + (f"{counted(sum(report.flags_by_kind.values()), 'flag')} ({kinds})" if kinds else "no flags"),
        f"checks     not verbatim {report.not_verbatim}, uncovered {report.uncovered}, KaTeX warnings {report.katex_warnings}",
        f"usage      {report.input_tokens} tokens in, {report.output_tokens} out, ${report.cost_usd:.4f}; {report.seconds:.1f} s"
        + (f"; Mathpix converted {counted(report.ocr_pages, 'PDF page')}" if report.ocr_pages else ""),
    ]
    for m in report.areas.misses:
        lines.append(f"miss       {m.part}: wanted {m.wanted}; made {m.made}")
    if report.conversion:
        lines.append(f"conversion {counted(len(report.conversion), 'note')} on no field (preamble, packages, page layout, "
                     "metadata): in report.json, not flags")
    for w in report.warnings:
        lines.append(f"warning    {w}")
    return lines


def run_flags(settled: Settled, part_boxes: list[PartBoxes], built: BuiltSet, compared: CompareResult | None = None,
              sheet: SheetText | None = None) -> list[Flag]:
    """Every flag of one document run, as ``flags.json`` lists them and the report counts them:
    the settled set's (tiers, verbatim, coverage, the structure audit), one ``area`` flag per
    refused answer box (:func:`tasks.boxes.propose.flags_of`), one ``area`` flag per part whose
    multiple-choice box marks no option correct, or whose options no box holds
    (:func:`tasks.boxes.propose.choice_flags`),
    one ``area`` flag per box whose tolerance is a guess (:func:`tasks.boxes.settings.tolerance_flags`)
    and one ``katex`` flag per field holding maths KaTeX cannot render for a cause no flag names
    yet (:func:`tasks.write.katex.katex_flags`); with ``sheet``, a ``conversion_loss`` flag on each
    field holding an image address that was not fetched (:func:`tasks.check.image_flags.image_link_flags`), a ``structure`` flag on each
    question when the sheet's file name says it holds solutions and none was read
    (:func:`tasks.settle.reading_doubts.solutions_name_flags`), or when its answer to a question
    of several parts follows the last alone (:func:`tasks.settle.reading_doubts.inline_whole_flags`;
    the name is never part of a
    cached stage's key, so this flag is raised here, outside the tiers' stage); then one ``ocr``
    flag per field holding a finding of the compare check (``compared``, on the markdown of
    ``sheet``: :func:`tasks.pages.place.ocr_flags`), last, so that a later ``sheet2lambda compare``
    replaces them without renumbering the others."""
    from tasks.boxes.propose import choice_flags, flags_of
    from tasks.boxes.settings import tolerance_flags
    from tasks.check.image_flags import image_link_flags
    from tasks.pages.place import ocr_flags
    from tasks.settle.reading_doubts import inline_whole_flags, solutions_name_flags
    from tasks.write.katex import katex_flags

    sources = {"questions": sheet.questions.text} if sheet is not None else {}
    if sheet is not None and sheet.solutions is not None:
        sources["solutions"] = sheet.solutions.text
    named = (solutions_name_flags(settled.questions, sheet.questions.name, sheet.solutions is not None)
             + inline_whole_flags(settled.questions, sheet.questions.name, sheet.solutions is not None)
             if sheet is not None else [])
    return (settled.flags + named + flags_of(part_boxes) + choice_flags(settled.questions, part_boxes)
            + tolerance_flags(settled.questions, part_boxes) + katex_flags(built.result.katex_warnings, settled.flags)
            + image_link_flags(settled.questions, sheet) + ocr_flags(compared, settled.questions, sources))


def compare_summary(compared: CompareResult | None, flags: list[Flag]) -> CompareSummary | None:
    """``report.json``'s ``compare`` of the check's result (``None`` when no check ran) and the
    run's flags (its ``ocr`` flags counted)."""
    if compared is None:
        return None
    return CompareSummary(status=compared.status.state.value, reason=compared.status.reason,
                          documents=compared.documents, flags=sum(1 for f in flags if f.kind == "ocr"))


def document_report(info: RunInfo, sheet: SheetText, a: RouteResult, b: RouteResult, adjudication: AdjudicationResult,
                    settled: Settled, part_boxes: list[PartBoxes], boxes_status: str | None, answerable: int,
                    built: BuiltSet, comparison: Comparison | None, score: Score | None,
                    compared: CompareResult | None = None) -> Report:
    """The :class:`Report` of one document run from its stages' results.

    ``part_boxes`` are the answer-box stage's parts (their refusals are flagged on their
    parts), ``boxes_status`` its status when it did not run (``off``, ``skipped: …``),
    ``answerable`` the parts it concerns; ``score`` the boxes against the export;
    ``seconds`` is the wall time since ``info.started``.
    """
    from tasks.boxes.propose import summarise
    from tasks.settle.tiers import conversion_notes

    boxes = summarise(part_boxes, boxes_status)
    if boxes_status is not None and boxes_status != "off":
        boxes.parts = answerable
    if score is not None:
        boxes = boxes.model_copy(update={"matched": score.matched, "in_export": score.in_export, "misses": score.misses})
    box_usage = Usage(input_tokens=boxes.input_tokens, output_tokens=boxes.output_tokens, cost_usd=boxes.cost_usd)
    usage = a.usage + b.usage + adjudication.usage + box_usage + (compared.usage if compared is not None else Usage())
    warnings = [f"image not found: {quoted(link)}" for link in sheet.missing_images()]
    if compared is not None and compared.status.state.value == "failed":
        warnings.append(f"compare failed ({compared.status.reason}): the PDF's pages were not checked against its OCR")
    flags = run_flags(settled, part_boxes, built, compared, sheet)
    if info.solutions_note:
        warnings.append(info.solutions_note)
    if info.areas:
        asked = {p.field for p in part_boxes}
        warnings += [f"areas.json: {key} is not a part with something to answer; its reply was not used"
                     for key in sorted(set(info.saved_area_keys) - asked)]
    return count_report(
        fields=settled.fields,
        flags=flags,
        route_a=route_summary(a),
        route_b=route_summary(b),
        source=info.source,
        solutions=info.solutions,
        set_name=info.set_name,
        questions=built.result.questions,
        parts=built.result.parts,
        katex_warnings=len(built.result.katex_warnings),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
        ocr_pages=sheet.questions.ocr_pages + (sheet.solutions.ocr_pages if sheet.solutions else 0),
        seconds=round(time.monotonic() - info.started, 3),
        comparison=(comparison.model_dump(include={"fields_compared", "equal", "notation", "content"})
                    if comparison is not None else None),
        warnings=warnings,
        conversion=conversion_notes(sheet.warnings(), settled.questions),
        metadata=sheet.metadata(),
        adjudication=str(adjudication.status),
        backend=info.backend,
        areas=boxes,
        compare=compare_summary(compared, flags),
    )


@task(name="report", cache_policy=NO_CACHE, persist_result=False)
def report_task(info: RunInfo, sheet: SheetText, a: RouteResult, b: RouteResult, adjudication: AdjudicationResult,
                settled: Settled, part_boxes: list[PartBoxes | list[PartBoxes]], boxes_status: str | None,
                answerable: int, built: BuiltSet, comparison: Comparison | None, score: Score | None,
                compared: CompareResult | None = None) -> Report:
    """:func:`document_report` as a task, ``part_boxes`` the answer-box tasks' results
    (:func:`tasks.boxes.propose.gathered`); never cached (it measures the run's time), its
    result not stored."""
    from tasks.boxes.propose import gathered

    return document_report(info, sheet, a, b, adjudication, settled, gathered(part_boxes), boxes_status, answerable, built,
                           comparison, score, compared)


def offline_refusals(a: RouteResult, adjudication: AdjudicationResult, part_boxes: list[PartBoxes],
                     saved_areas: bool) -> list[str]:
    """What an ``--offline`` run could not do without a live call: route A or adjudication
    with no saved reply, and, when an ``areas.json`` was given, the parts it lacks (a saved
    ``areas.json`` is replayed whole or not at all). Empty when nothing was refused."""
    from schemas.status import Cause

    refused = [f"{stage}: {status.reason}" for stage, status in (("route A", a.status), ("adjudication", adjudication.status))
               if status.cause == Cause.offline_no_reply]
    unanswered = [p.field for p in part_boxes if p.status.cause == Cause.offline_no_reply]
    if saved_areas and unanswered:
        refused.append(f"answer boxes: no saved reply in areas.json for {', '.join(unanswered)}")
    return refused
