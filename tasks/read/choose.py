"""Which filter route B runs over a sheet, and the route B stage.

The filter is the one given (``--filter``, a saved ``filter.lua``, the folder's), else one
the model writes for the sheet (:mod:`tasks.read.filter_writer`), else the library filter
that accounts for most of the sheet (:func:`tasks.read.library_choice.choose_library_filter`).
A folder chooses once for all its sheets (:func:`folder_filter_task`).
"""

from __future__ import annotations

from pydantic import BaseModel

from schemas.flags import Flag
from schemas.llm import BackendSpec
from schemas.markdown import SheetText
from schemas.routes import RouteResult, Usage
from schemas.status import Cause, StageStatus, State
from tasks.cache import stage
from tasks.convert.pairing import named_as_solutions
from tasks.errors import FilterError
from tasks.llm import BackendError, NoReply
from tasks.llm.select import backend_for
from tasks.read.filter_writer import FilterWritingFailed, write_filter
from tasks.read.layout import read_and_pair_inferred
from tasks.read.library_choice import choose_library_filter
from tasks.read.route_b import library_filters, read_and_pair
from tasks.read.sandbox import reusing_runs, time_limited


class FolderFilter(BaseModel):
    """A folder's one filter: its Lua ``source`` and a ``label`` saying where it came from."""

    source: str
    label: str
    writer_failed: str = ""
    """Why the filter writer's call failed, when that is why this filter was chosen (such a
    choice is never a cache hit: :func:`tasks.cache.reusable`)."""


def solutions_inline(sheet: SheetText) -> bool:
    """Does ``sheet`` hold its solutions in place: no solutions document, and the sheet's own
    file named as solutions (:func:`tasks.convert.pairing.named_as_solutions`:
    ``practice-problems-solutions.qmd``)? Then route B reads what follows each prompt as its
    solution (``SHEET2LAMBDA_INLINE`` in ``filters/library/general.lua``)."""
    return sheet.solutions is None and named_as_solutions(sheet.questions.name)


def _route_b_view(sheet: SheetText) -> list:
    return [*sheet.texts(), solutions_inline(sheet)]


@stage("route B", views={"sheet": _route_b_view})
def route_b_task(
    sheet: SheetText,
    chosen: FolderFilter | None,
    backend: BackendSpec | None = None,
    tries: int = 3,
) -> RouteResult:
    """Route B as a cached task, keyed by the markdown texts, the filter's source, and the
    backend and model that would write one.

    The filter is ``chosen`` when given (``--filter``, ``filter.lua`` saved among
    the replies); else, with a live ``backend``, one written for this sheet
    (:func:`tasks.read.filter_writer.write_filter`, up to ``tries`` calls); else — or when no
    written filter works — the library filter that accounts for most of the sheet
    (:func:`choose_library_filter`). A failing filter gives a ``failed`` result with the
    reason; the run goes on with route A alone.
    """
    inline = solutions_inline(sheet)
    if chosen is None:
        return choose_filter_and_read(*sheet.texts(), None, backend, tries, inline=inline)
    return choose_filter_and_read(*sheet.texts(), chosen.source, backend, tries, label=chosen.label)


@reusing_runs  # the same filter run twice (choosing the filter, then reading with it): once
def choose_filter_and_read(
    questions_md: str,
    solutions_md: str | None,
    filter_source: str | None,
    backend: BackendSpec | None = None,
    tries: int = 3,
    label: str = "given filter",
    inline: bool = False,
) -> RouteResult:
    """Choose route B's filter and read two markdown texts with it (:func:`route_b_task` says
    which filter: ``filter_source`` when given, named ``label`` in the result; else one written
    with ``backend``, up to ``tries`` calls; else the library's, whose general reader infers
    the sheet's layout: :func:`tasks.read.layout.read_and_pair_inferred`, the layout named in
    the label when it is not the reader's own choice; with ``inline``, its solutions read in
    place: :func:`solutions_inline`). Returns the route's
    :class:`RouteResult`, ``failed`` with the reason when the filter fails; never raises for a
    failing filter or writer."""
    usage, note, calls, writer_error = Usage(), "", 0, ""
    if filter_source is None and backend is not None:
        try:
            written = write_filter(backend_for(backend), questions_md, solutions_md, tries=tries)
        except FilterWritingFailed as e:
            usage, calls = e.usage, len(e.attempts)
            note = f"no written filter worked in {len(e.attempts)} tries ({e.reason}); "
        except (NoReply, BackendError) as e:
            note = f"the filter writer failed ({e}); "
            writer_error = str(e) if isinstance(e, BackendError) else ""
        else:
            n = len(written.attempts)
            return RouteResult(
                route="B",
                status=StageStatus(state=State.ran),
                questions=written.reading,
                raw=written.reading.model_dump_json(indent=2),
                usage=written.usage,
                filter_label=f"written filter (attempt {written.chosen + 1} of {n})",
                filter_source=written.source,
                calls=n,
            )
    if filter_source is None:
        name, source = choose_library_filter(questions_md, solutions_md)
        label = f"{note}library filter {name}"
    else:
        name, source = "filter", filter_source
    try:
        if filter_source is None and name == "general":
            reading, pairing = read_and_pair_inferred(source, questions_md, solutions_md, name=name, inline=inline)
        else:
            reading, pairing = read_and_pair(source, questions_md, solutions_md, name=name,
                                             patient=filter_source is None)
    except FilterError as e:
        return RouteResult(route="B", status=StageStatus(state=State.failed, reason=e.reason, cause=Cause.invalid),
                           usage=usage, filter_label=label, filter_source=source, calls=calls)
    if pairing.layout and pairing.layout != "auto":
        label = f"{label} (read as {pairing.layout})"
    # A library filter read the sheet because the writer's server failed: a result, but
    # never a cache hit (tasks.cache.reusable), so a rerun asks the writer again.
    slow = time_limited()
    status = (StageStatus(state=State.ran, reason=f"the filter writer failed: {writer_error}", cause=Cause.backend_error)
              if writer_error else StageStatus(state=State.ran, reason=f"read under a time limit: {slow[0]}",
                                               cause=Cause.time_limit) if slow else StageStatus(state=State.ran))
    return RouteResult(
        route="B",
        status=status,
        questions=reading,
        raw=reading.model_dump_json(indent=2),
        usage=usage,
        filter_label=label,
        filter_source=source,
        calls=calls,
        pairing=pairing.how,
        flags=pairing.flags + time_limit_flags(slow),
    )


def time_limit_flags(slow: list[str]) -> list[Flag]:
    """One ``structure`` flag on the set (field ``set``) when route B's reading left out what ran
    past its time limit twice (``slow``: :func:`tasks.read.sandbox.time_limited`): a layout
    left out of the choice, or a library filter scored zero, so the sheet may read otherwise on a
    quieter machine. ``[]`` when nothing did."""
    if not slow:
        return []
    return [Flag(field="set", kind="structure", reason=(
        "route B read this sheet under a time limit: " + "; ".join(slow) + " ran past it twice and was "
        "left out, so the sheet may read otherwise on a quieter machine; run it again (nothing of this "
        "reading is kept for reuse), or check each question's markers and parts against the sheet"))]


def unread_line(a: RouteResult, b: RouteResult, sheet: str, filter_file: str | None = None) -> str | None:
    """The one line when neither route produced a reading of ``sheet`` (route B's filter
    failed, route A skipped or failed): there is nothing to build a set from, so the run
    writes nothing and fails (a set of no questions would replace a good one in ``--out``).
    It names ``filter_file`` (the filter the user gave) and its error when that filter
    failed, else the sheet and both routes' reasons. ``None`` when either route read the
    sheet (a one-route set is built, its failed route said in the summary)."""
    if a.questions is not None or b.questions is not None:
        return None
    route_a = f"route A {a.status}"
    if filter_file and b.status.state == State.failed:
        return f"{filter_file}: {b.status.reason} (no route read {sheet}; {route_a}): nothing written"
    how = f", {b.filter_label}" if b.filter_label else ""
    return f"{sheet}: no route read the sheet (route B {b.status}{how}; {route_a}): nothing written"


def folder_filter(sheet: SheetText, backend: BackendSpec | None, tries: int = 3) -> FolderFilter:
    """The filter for a folder whose first sheet is ``sheet``: one the model writes for it
    (with a live ``backend``), else the library filter that accounts for most of it."""
    q_md, s_md = sheet.texts()
    if backend is not None:
        written = choose_filter_and_read(q_md, s_md, None, backend, tries)
        if written.written_filter:
            return FolderFilter(source=written.filter_source, label=f"written for {sheet.questions.name}")
        failed = written.status.reason if written.status.cause == Cause.backend_error else ""
    else:
        failed = ""
    name, _ = choose_library_filter(q_md, s_md)
    return FolderFilter(source=library_filters()[name], label=f"library filter {name}", writer_failed=failed)


@stage("folder filter", views={"sheet": SheetText.texts})
def folder_filter_task(sheet: SheetText, backend: BackendSpec | None, tries: int = 3) -> FolderFilter:
    """:func:`folder_filter` as a cached task."""
    return folder_filter(sheet, backend, tries)
