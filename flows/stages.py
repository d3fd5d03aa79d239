"""Each stage's line of a document run, said as that stage ends.

:func:`reading_lines` and :func:`building_lines` yield one line per stage once the stage has
ended (they wait for it): the terminal and the flow run's log in the Prefect UI get each
line then, one log record each (:func:`say_as_they_end`), not all at once at the end of the
run. ``[cached]`` marks a stage Prefect's cache answered.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from commandline.logs import say
from flows.dag import SheetRun
from schemas.routes import RouteResult
from tasks.check.report import counted


def _route_line(r: RouteResult, not_verbatim: dict) -> str:
    if r.questions is None:
        return str(r.status)
    extra = f", {r.filter_label}" if r.filter_label else ""
    return (f"{r.status.state.value}{extra}: {counted(len(r.questions), 'question')}, "
            f"{counted(r.questions.n_parts(), 'part')}, {len(not_verbatim)} not verbatim")


def _tag(*fs) -> str:
    """`` [cached]`` when every one of a stage's task runs was answered by Prefect's cache."""
    done = [f for f in fs if f is not None]
    return " [cached]" if done and all(f.state.name == "Cached" for f in done) else ""


def reading_lines(run: SheetRun) -> Iterator[str]:
    """The reading stages' lines, each yielded once its stage has ended (this waits for it):
    markdown, route A and route B (once the verbatim checks have run), adjudication, tiers."""
    sheet = run.sheet.result()
    md_q, md_s = sheet.questions, sheet.solutions
    missing = sheet.missing_images()
    yield (f"markdown   {md_q.name}: {counted(md_q.text.count(chr(10)) + 1, 'line')}, "
           f"{counted(len(md_q.images), 'image')} ({len(missing)} missing), "
           f"{counted(len(md_q.warnings), 'conversion warning')}; solutions: "
           + (f"{md_s.name}, {counted(len(md_s.warnings), 'conversion warning')}" if md_s else "none")
           + _tag(*run.markdown))
    if run.inputs.solutions_note:
        yield f"solutions  {run.inputs.solutions_note}"
    checks = run.checks.result()
    yield f"route A    {_route_line(run.route_a.result(), checks.not_verbatim_a)}{_tag(run.route_a)}"
    yield f"route B    {_route_line(run.route_b.result(), checks.not_verbatim_b)}{_tag(run.route_b)}"
    yield (f"adjudicate {counted(len(checks.disputes), 'disputed field')}: {run.adjudicate.result().status}"
           f"{_tag(run.adjudicate)}")
    settled = run.settled.result()
    tiers = Counter(f.tier for f in settled.fields if f.tier != "empty")
    yield (f"tiers      {counted(sum(tiers.values()), 'field')}: agreed {tiers['agreed']}, single-route "
           f"{tiers['single']}, adjudicated {tiers['adjudicated']}, flagged {tiers['flagged']}{_tag(run.settled)}")


def building_lines(run: SheetRun) -> Iterator[str]:
    """The building stages' lines, each yielded once its stage has ended: the answer boxes,
    a PDF's pages against its OCR, the set, and with an export the comparison and the boxes' score."""
    from tasks.boxes.propose import summarise

    boxes = run.box_futures()
    parts = run.part_boxes()
    ar = summarise(parts, run.boxes_status)
    parts_n = run.answerable if run.boxes_status != "off" else ar.parts
    cached = " [cached]" if boxes and all(f.state.name == "Cached" for f in boxes) else ""
    yield (f"boxes      {ar.status}: {counted(parts_n, 'answerable part')}, {counted(ar.calls, 'call')}; "
           f"{ar.proposed} proposed ({ar.from_sheet} from the sheet), "
           f"{ar.refused} refused, {ar.written} written{cached}")
    if run.pages is not None:
        from tasks.pages.check import compare_line

        yield compare_line(run.pages.result()) + _tag(run.pages)
    built = run.build.result()
    yield (f"build      {run.info.set_name}.zip: {counted(built.result.questions, 'question')}, "
           f"{counted(built.result.parts, 'part')}, {counted(len(built.result.katex_warnings), 'KaTeX warning')}"
           f"{_tag(run.build)}")
    if run.compare is not None:
        c = run.compare.result()
        yield (f"compare    {counted(c.fields_compared, 'field')} against the export: {c.equal} equal, "
               f"{c.notation} notation-only, {counted(c.content, 'content difference')}{_tag(run.compare)}")
    if run.score is not None:
        s = run.score.result()
        yield f"score      {s.matched} of {s.in_export} answer boxes of the export matched{_tag(run.score)}"


def say_as_they_end(lines: Iterator[str]) -> list[str]:
    """Say each line as its stage ends (one log record each: the UI's run log shows them as
    they come); a stage that failed stops the lines (its failure is said in one line)."""
    said = []
    try:
        for line in lines:
            say(line)
            said.append(line)
    except Exception:
        pass
    return said
