"""A folder's sheets through their DAGs: the wiring under the folder flow and the sweep.

:func:`run_folder` pairs a folder's sheets with their solutions, keeps a bounded number of
them in flight (:func:`sheets_in_flight`; the next starts as one ends), submits each sheet's
stages (:mod:`flows.dag`) to the calling flow's task runner, moves each sheet on the moment
its own stage is done (route B once the folder's one filter is chosen: given, saved or
written from the first sheet; with none of those, each sheet's own library filter, as alone),
writes each sheet's outputs and report row as it ends, and at the end the folder's report,
``flags.md`` and ``filter.lua``. Wiring only.
"""

from __future__ import annotations

import commandline.runtime as runtime

runtime.quiet_environment()

import queue  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterable  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect.artifacts import update_progress_artifact  # noqa: E402

from commandline.logs import say  # noqa: E402
from commandline.runners import release  # noqa: E402
from commandline.slots import SLOT_EVENT, machine_slots, sheets_in_flight  # noqa: E402
from commandline.options import shown_name, utf8_name  # noqa: E402
from commandline.out_paths import (  # noqa: E402
    OUTPUT_MANIFEST, holds_outputs, inside, out_above, out_inside, out_over_inputs)
from commandline.terminal import Bar, counted  # noqa: E402
from flows.dag import (  # noqa: E402
    SheetRun, as_input, first_converted, fresh_stages, next_event, submit_markdown, submit_rest, submit_route_a,
    submit_routes, unconverted, unread, when_done,
)
from flows.document import failure_line, finish, run_info  # noqa: E402
from schemas.folder import FolderOutcome, SheetRow  # noqa: E402
from schemas.llm import BackendSpec  # noqa: E402
from tasks.check import folder_report  # noqa: E402
from tasks.check.folder_report import built_row, failed_row  # noqa: E402
from tasks.convert.folder_inputs import find_export, given_filter, read_accepted, replies_for, reply_link_leaving, reply_not_ours  # noqa: E402
from tasks.convert.inputs import read_inputs  # noqa: E402
from tasks.convert.pairing import FORMAT_PREFERENCE, FolderPairs, SheetPair, find_solutions  # noqa: E402
from tasks.convert.tree import found_skip, leaves, not_sheet_files, skipped_line, solutions_skip  # noqa: E402
from tasks.errors import InputError, visible  # noqa: E402
from tasks.read.choose import folder_filter_task  # noqa: E402
from tasks.write.outputs import FOLDER_OUTPUT_NAMES, check_set_name, claim, taken_by_run  # noqa: E402


PROGRESS_SECONDS = 1.0
"""Least seconds between two updates of the run's progress artifact (a request each)."""


def run_folder(
    folder: Path,
    out: Path,
    *,
    filter_path: Path | None = None,
    suffixes: tuple[str, ...] = FORMAT_PREFERENCE,
    replies: Path | None = None,
    offline: bool = False,
    spec: BackendSpec | None = None,
    tries: int = 3, verbose: bool = True,
    progress_id=None,
    done: list[int] | None = None,
    total: list[int] | None = None,
    accepted_file: Path | None = None,
    areas: bool = True,
    root: Path | None = None,
    bar: Bar | None = None,
    fresh_ocr: bool = False,
    in_flight: int | None = None,
    pairs_found: Iterable[SheetPair] | None = None, out_roots: list[str] | None = None,
) -> FolderOutcome:
    """Run every sheet of ``folder`` into ``out/<stem>/``, ``out/filter.lua`` and the folder
    report. Call inside a flow run (the folder flow, or the sweep): ``in_flight`` sheets at
    most (default :func:`sheets_in_flight`) have their stages on the flow's task runner
    (:mod:`flows.dag`), started in the folder's order, the next as one ends; a sheet's
    markdown and route A start at once and only route B waits for the folder's filter. Each
    sheet's outputs are written as it ends, and its row appended to ``report.csv`` (which
    the end rewrites in the folder's order, with the totals).
    ``accepted_file`` is the folder's ``accepted.txt`` (default: beside its saved filter,
    else in the folder); ``areas`` False skips the answer boxes; ``done``/``total`` count
    sheets finished and listed across folders (a sweep: ``total`` a one-item list, which the run
    lowers by each sheet it skips) for the progress line and artifact. An entry named as a sheet
    that is no regular file (a FIFO, a folder ``x.md``, a link to nothing) is a skipped line. ``root``
    (default ``folder``): LaTeX sheets may read files in it; a sheet, export, filter, saved
    reply or ``accepted.txt`` found leaving ``folder``, or solutions leaving the place the document
    rule allows (:func:`tasks.convert.tree.solutions_skip`), is skipped (a line in ``flags.md``). ``bar`` shows the
    sheets finished (:class:`commandline.terminal.Bar`; default a printed line per sheet);
    ``fresh_ocr`` converts PDFs with Mathpix again. ``pairs_found``: the caller's pairs (default
    :class:`tasks.convert.pairing.FolderPairs`: each sheet paired, and checked, as it is started,
    so the first starts after one listing of the folder); ``total`` their count; ``out_roots`` a deployment's roots."""
    if inside(out, folder):  # its flags.md and each sheet's source.md would be read as sheets next time
        raise InputError(str(out), out_inside(True, folder, "the folder it reads"))
    if inside(folder, out):  # the manifest above the course would make it "a run's outputs"
        raise InputError(str(out), out_above(True, folder, "the folder it reads"))
    if holds_outputs(folder):
        raise InputError(str(folder), f"holds a previous run's outputs ({OUTPUT_MANIFEST}), not sheets: name the "
                                      "folder of sheets")
    overlap = out_over_inputs(out, {"--replies": replies}, {"--filter": filter_path}, equal_ok=("--replies",))
    if overlap:  # its outputs among the saved replies or beside the filter it reads
        raise InputError(str(out), overlap)
    folder_report.make_out(out, None if holds_outputs(out) else suffixes)  # full, or sheets in it: one line (C18)
    claim(out, FOLDER_OUTPUT_NAMES, str(folder))  # a user's report.csv or flags.md in --out is never overwritten
    root_dir = root or folder
    skipped: list[str] = not_sheet_files(folder, suffixes, folder)  # a FIFO, a folder named x.md: a line each
    dropped: set[str] = set()  # sheets whose solutions were skipped: read_inputs looks again and says why
    stream = FolderPairs(folder, suffixes) if pairs_found is None else pairs_found
    source = iter(stream)
    pairs: list[SheetPair] = []  # paired so far, in the folder's order

    def paired(i: int) -> SheetPair | None:
        """The folder's ``i``-th pair, pairing on as far as it; ``None`` past the last."""
        while len(pairs) <= i and (nxt := next(source, None)) is not None:
            pairs.append(nxt)
        return pairs[i] if i < len(pairs) else None
    checks: dict[str, SheetPair | None] = {}
    less = [0]  # pairs skipped at their check

    def checked(pair: SheetPair) -> SheetPair | None:
        """The pair as the run reads it, checked once, as it is started: ``None`` when skipped
        (a name not UTF-8, a link leaving the root: a line in ``skipped``)."""
        if (key := str(pair.source)) in checks:
            return checks[key]
        checks[key], less[0] = None, less[0] + 1  # no row, no numbered line: the count drops it
        if not utf8_name(pair.source):  # no report, log or Prefect parameter can hold the name
            skipped.append(f"{shown_name(pair.source)}: the name is not UTF-8: skipped")
            return None
        if pair.solutions is not None and not utf8_name(pair.solutions):
            skipped.append(f"{shown_name(pair.solutions)}: the name is not UTF-8: skipped")
            pair = SheetPair(pair.source, None, lone=pair.lone, alternates=pair.alternates)
        if (line := found_skip(pair.source, folder)) is not None:  # found, not named: the opener's rule
            skipped.append(line)
            return None
        if pair.solutions is not None and (line := solutions_skip(pair.source, pair.solutions, root_dir)) is not None:
            skipped.append(line)
            pair = SheetPair(pair.source, None, lone=pair.lone, alternates=pair.alternates)
            dropped.add(key)
        checks[key], less[0] = pair, less[0] - 1
        return pair

    # A folder of one sheet reads its replies and export as that sheet's: whether one sheet
    # passes its checks is known from the first two that do, not from checking them all.
    passing, i = 0, 0
    while passing < 2 and (pair := paired(i)) is not None:
        passing, i = passing + (checked(pair) is not None), i + 1
    single = passing == 1
    export = find_export(folder)
    if export is not None and leaves(export, folder):
        skipped.append(skipped_line(export, folder))
        export = None
    if export is not None and not single:
        export = None  # a target is one sheet and its export
    root = replies or folder
    chosen, saved = given_filter(folder, filter_path, replies, folder, skipped)  # a refused one: a skipped line
    found_accepted = (saved.parent / "accepted.txt") if saved else (folder / "accepted.txt")
    if accepted_file is None and found_accepted.exists() and (line := found_skip(found_accepted, folder)):
        skipped.append(line)  # found, not named: only the tree's own files
        found_accepted = None
    accepted = read_accepted(accepted_file or found_accepted, None if accepted_file else folder)
    done = done if done is not None else [0]
    count = total if total is not None else [len(stream)]  # a sweep's is every folder's
    mine = [len(stream)]  # this folder's part of it

    def total_now() -> int:
        """The count the lines show: the sheets listed with one (a sheet skipped at its check
        is a skipped line instead), the stream's count exact once all are paired."""
        count[0] += (now := len(stream) - less[0]) - mine[0]
        mine[0] = now
        if bar is not None and bar.total != count[0]:
            bar.retotal(count[0])
        return count[0]
    rows: dict[str, SheetRow] = {}
    flags_by_sheet: dict[str, list] = {}
    seen: set[str] = set()
    started: dict[str, float] = {}
    shown_at = [0.0]
    rows_csv = folder_report.start_rows(out, roots=out_roots)  # each write through --out opened (attack 10, C32)

    def finished(pair: SheetPair, row: SheetRow) -> None:
        key = first_of.get(str(pair.source), str(pair.source))  # a fallback format's row stands for its sheet
        row.seconds = round(time.monotonic() - started.get(key, time.monotonic()), 3)
        if row.outcome == "built" and key in fell_back:
            row.reason = "; ".join(r for r in (fell_back[key], row.reason) if r)
        rows[key] = row
        done[0] += 1
        if verbose:
            what = (f"{counted(row.questions or 0, 'question')}, {counted(row.parts or 0, 'part')}, {row.flagged} flagged"
                    + (f", {row.new_differences} new differences" if row.new_differences is not None else "")
                    if row.outcome == "built" else f"failed: {row.reason}")
            try:  # under a sweep's root: its folder too (two folders' sheet.tex are two lines)
                shown = str(pair.source.resolve().relative_to(root_dir.resolve()))
            except ValueError:
                shown = pair.source.name
            # say() keeps a message's own line breaks: the name's and the reason's are escaped here
            line = f"[{done[0]}/{total_now()}] {visible(shown)}: {visible(what)} ({row.seconds:.1f} s)"
            bar.done(line) if bar is not None else say(line)
        folder_report.append_row(rows_csv, row, out_roots)
        if progress_id is not None and (done[0] == total_now() or time.monotonic() - shown_at[0] >= PROGRESS_SECONDS):
            shown_at[0] = time.monotonic()  # one request a second at most, and the last
            update_progress_artifact(progress_id, progress=100.0 * done[0] / max(total_now(), 1))

    # 1. How each sheet is started and read; the first sheet's markdown decides the filter.
    media = Path(tempfile.mkdtemp(prefix="sheet2lambda-folder-"))
    runs: dict[str, tuple[SheetPair, SheetRun]] = {}
    filter_f = None
    # With no filter given or saved and no model to write one, a sheet takes the library filter
    # that accounts for most of it, as it does run alone (flows.document): the same sheet reads
    # the same in a folder or not. The folder's one filter is one given, saved or written.
    own_library = chosen is None and spec is None
    libraries: dict[str, str | None] = {}  # route B's label → the library filter's source
    first_of: dict[str, str] = {}  # a fallback format's source → the sheet's key
    fell_back: dict[str, str] = {}  # the sheet's key → why its preferred format was not used

    def start(pair: SheetPair, key: str, i: int | str) -> SheetRun | str:
        """Read a sheet's inputs and submit its markdown; the one-line error on bad input."""
        if taken := taken_by_run(pair.source.stem, "its set folder"):  # out/filter.lua/ would block the run's own
            return f"{pair.source}: {taken}"
        try:
            where = replies_for(pair, root, single=single)
            away = reply_link_leaving(where, replies or folder) if where is not None else None
            foreign = reply_not_ours(where) if where is not None and replies is None else None  # found, not named
            if away is not None or foreign:  # a saved reply linked from elsewhere, or a co-user's: never read
                skipped.append(foreign or skipped_line(away, replies or folder))
                where = None
            inputs = read_inputs(str(pair.source), str(pair.solutions) if pair.solutions else None, None,
                                 str(where) if where else None, str(export) if export else None,
                                 tex_root=str(root_dir), fresh_ocr=fresh_ocr,
                                 look_for_solutions=str(pair.source) in dropped, found_in=str(root_dir))
        except InputError as e:
            return str(e)
        if pair.lone:
            inputs.solutions, inputs.solutions_bytes, inputs.solutions_note = None, None, ""
        set_name = inputs.export.name if inputs.export else pair.source.stem
        try:
            check_set_name(set_name, str(pair.source))
        except InputError as e:
            return str(e)
        info = run_info(inputs, set_name, spec, offline, areas, started[key])
        return submit_markdown(inputs, info, out / pair.source.stem, str(media / str(i)), spec, offline, out_roots)

    def fallback(pair: SheetPair, key: str, error: str) -> tuple[SheetPair, SheetRun] | None:
        """The same sheet in its next format (tex → docx → md), when the folder holds one."""
        while pair.alternates:
            alt = pair.alternates[0]
            if found_skip(alt, folder) is not None:
                pair = SheetPair(pair.source, pair.solutions, pair.lone, pair.alternates[1:])
                continue
            sol = None if pair.lone else find_solutions(alt)
            if sol is not None and solutions_skip(alt, sol, root_dir) is not None:
                sol = None
                dropped.add(str(alt))  # read_inputs looks again and says why it is not read
            nxt = SheetPair(alt, sol, pair.lone, pair.alternates[1:])
            first_of[str(alt)] = key
            fell_back[key] = f"{Path(key).name} could not be converted ({error.split(': ', 1)[-1]}); read {alt.name}"
            run = start(nxt, key, f"alt{len(first_of)}")
            if not isinstance(run, str):
                return nxt, run
            pair, error = nxt, run
        return None

    # 2. At most `window` sheets in flight: the next sheet starts as one ends, so memory holds
    # a window's futures and results, not the folder's, and the first sheets end at once.
    # Each sheet moves on the moment its own stage is done (no sheet waits for another): its
    # markdown → route A at once, and route B once the folder's filter is chosen (from the
    # first sheet, in the folder's order, that converts: the same sheet every run, so the
    # filter writer's cache holds) → settled → answer boxes, set, report → outputs; its row
    # is appended to report.csv as it ends.
    events: queue.Queue[tuple[str, str]] = queue.Queue()
    converted: dict[str, bool] = {}
    waiting_for_filter: list[str] = []
    launched = [0]  # pairs started so far
    window = sheets_in_flight(spec is not None, in_flight)

    # With a shared server a sheet starts only with a slot of the machine's too (commandline.slots).
    slots = machine_slots(events, live=spec is not None)
    asked = [0]  # slots asked for and not yet granted
    slot_of: dict[str, str] = {}  # a sheet in flight → its slot's token

    def start_next(token: str | None = None) -> bool:
        """Start the folder's next sheet that gets in flight (one skipped or failing at its
        start takes no place); False when none is left."""
        while (raw := paired(launched[0])) is not None:
            i, launched[0] = launched[0], launched[0] + 1
            key, pair = str(raw.source), checked(raw)
            if pair is None:  # skipped: a line in the report, no row
                converted[key] = False
                continue
            started[key] = time.monotonic()
            run = start(pair, key, i)
            if isinstance(run, str):
                converted[key] = False
                finished(pair, failed_row(pair, folder).model_copy(update={"reason": run}))
                continue
            runs[key] = (pair, run)
            if token is not None:
                slot_of[key] = token
            when_done(run.markdown, events, "markdown", key)
            return True
        return False

    def launch() -> None:
        """Start sheets, in the folder's order, until `window` are in flight or none is left
        (with the machine's limit: a slot asked for, the sheet started once granted, then the next)."""
        if slots is None:
            while len(runs) < window and start_next():
                pass
            return
        if not asked[0] and len(runs) < window and paired(launched[0]) is not None:
            asked[0] = 1  # one ask at a time: a run waiting polls the server once, not once per place
            slots.ask()

    def ended(key: str, row: SheetRow) -> None:
        """A sheet in flight ended with ``row``: its row written, its place given to the next sheet."""
        pair, run = runs.pop(key)
        if slots is not None and key in slot_of:
            slots.free(slot_of.pop(key))
        finished(pair, row)
        release([*run.futures().values(), *run.box_futures()])  # what Prefect keeps of its task runs
        for done in (run.media_dir, f"{run.media_dir}-images"):  # its docx media and the images it read
            shutil.rmtree(done, ignore_errors=True)
        launch()

    try:
        launch()
        while runs or asked[0]:
            what, key = next_event(events)
            if what == SLOT_EVENT:  # a slot of the machine's limit: the next sheet takes it
                asked[0] -= 1
                if not start_next(key):
                    slots.free(key)
                launch()
                continue
            pair, run = runs[key]
            if what == "markdown":
                error = unconverted(run)
                if error and (nxt := fallback(pair, key, error)) is not None:
                    runs[key] = nxt
                    when_done(nxt[1].markdown, events, "markdown", key)
                    continue
                converted[key] = error is None
                if error:
                    if key in fell_back:
                        error = f"{fell_back[key]}, which failed too: {error}"
                    ended(key, failed_row(pair, folder).model_copy(update={"reason": error}))
                else:
                    submit_route_a(run)
                    waiting_for_filter.append(key)
                if own_library:
                    pass  # no filter given, saved or written: each sheet takes its own library filter
                elif chosen is None and filter_f is None:
                    first = first_converted((str(p.source) for p in pairs), converted)
                    if first == "" and paired(len(pairs)) is not None:
                        first = None  # a sheet not yet started may convert: wait for it
                    if first is None:
                        continue  # an earlier sheet's markdown decides the filter: wait for it
                    if first:
                        filter_f = folder_filter_task.submit(as_input(runs[first][1].sheet), as_input(spec), tries)
                for ready in waiting_for_filter:
                    submit_routes(runs[ready][1], None if own_library else chosen if chosen is not None else filter_f,
                                  tries)
                    when_done([runs[ready][1].settled], events, "settled", ready)
                waiting_for_filter.clear()
            elif what == "settled":
                try:
                    settled = run.settled.result()
                except Exception:
                    ended(key, failed_row(pair, folder).model_copy(update={"reason": failure_line(run)}))
                    continue
                nothing = unread(run, str(saved) if chosen is not None and saved is not None else None)
                if nothing:  # neither route read it (the folder's filter failed on it): a failed row
                    ended(key, failed_row(pair, folder).model_copy(update={"reason": nothing}))
                    continue
                submit_rest(run, settled, areas)
                when_done([run.outputs], events, "outputs", key)
            else:
                outcome = finish(run, verbose=False)
                if outcome.report is None:
                    ended(key, failed_row(pair, folder).model_copy(update={"reason": outcome.error or "not built"}))
                    continue
                flags_by_sheet[pair.source.name] = [f.model_dump() for f in outcome.flags]
                if own_library:
                    read_b = run.route_b.result()
                    libraries[read_b.filter_label] = read_b.filter_source
                row = built_row(failed_row(pair, folder), outcome, pair.source.stem, accepted, seen, offline)
                ended(key, row.model_copy(update={"fresh_stages": fresh_stages(outcome.task_states)}))
    finally:
        if slots is not None:
            slots.close()
        shutil.rmtree(media, ignore_errors=True)
    if started:  # the span of the sheets' own work, for the command's overhead line
        runtime.STARTUP["sheets"] = float(runtime.STARTUP.get("sheets", 0.0)) + (
            time.monotonic() - min(started.values()))

    label, lua = (chosen.label, chosen.source) if chosen is not None else ("", None)
    if own_library and len(libraries) == 1:  # every sheet took the same library filter: the folder's
        label, lua = next(iter(libraries.items()))
        lua = lua or ""
    elif own_library and libraries:
        label = "each sheet its own library filter: " + ", ".join(sorted(n.removeprefix("library filter ")
                                                                         for n in libraries))
    if chosen is None and filter_f is not None:
        try:  # .result(), not .state: a Dask future's state is only known once its result was fetched
            written = filter_f.result()
        except Exception:
            written = None
        if written is not None:
            label, lua = written.label, written.source
    ordered = [rows[str(p.source)] for p in pairs if str(p.source) in rows]  # a sheet skipped has none
    stale = sorted(k for k in accepted if k not in seen) if export is not None else []
    outcome = FolderOutcome(folder=str(folder), out=str(out), filter=label, rows=ordered, stale_accepted=stale,
                            skipped_links=skipped)
    folder_report.write_end(out, ordered, flags_by_sheet, skipped, lua, out_roots)
    if verbose:
        for line in skipped:
            print(f"skipped    {line}")
    return outcome
