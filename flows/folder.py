"""The folder flow: one filter for a folder of sheets in one house style, fanned out over
every sheet concurrently, and a polars report.

    python -m flows.folder DIR [--out DIR] [--filter FILE.lua] [--suffix tex --suffix md ...]
                           [--replies DIR] [--offline] [--max-concurrency N] [--dask-address ADDR]
                           [--backend ...] [--model ...] [--tries N]

Wiring only. Each sheet's DAG (:mod:`flows.dag`) is submitted to this flow's task runner
as the sheet is paired and started, a bounded number in flight (:mod:`flows.folder_run`) — no subflow per sheet, no thread pool of our own: this process's threads by
default, or a Dask cluster's workers (``--dask-address``, prefect-dask), to which every
task's parameters and result travel pickled.
One sheet failing never stops the others: its row says why.
"""

from __future__ import annotations

import commandline.entry as entry
import commandline.runtime as runtime

if __name__ == "__main__":
    # --help, a bad option or a missing folder answer before Prefect is imported (commandline/options.py).
    entry.entry("folder", prog="python -m flows.folder")
runtime.quiet_environment()

import argparse  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

_t_prefect = time.monotonic()
from prefect import flow  # noqa: E402
runtime.STARTUP.setdefault("prefect_import", time.monotonic() - _t_prefect)
from prefect.artifacts import create_markdown_artifact, create_progress_artifact, create_table_artifact  # noqa: E402

from commandline.ends import built_with_failures, failed as failed_state  # noqa: E402
from commandline.logs import fit_lines, say, width  # noqa: E402
from commandline.options import form_problem, parser, resolve  # noqa: E402
from commandline.runners import Threads  # noqa: E402
from commandline.terminal import Bar, folder_next_line, shown_path, short_table  # noqa: E402
from commandline.confine import confine  # noqa: E402
from commandline.dask_fixed import run_dask_address  # noqa: E402
from flows.folder_run import run_folder  # noqa: E402
from schemas.llm import BackendChoice  # noqa: E402
from schemas.folder import FolderOutcome  # noqa: E402
from tasks.check import folder_report  # noqa: E402
from tasks.check.folder_report import run_json  # noqa: E402
from tasks.write.publish import publish_files  # noqa: E402
from tasks.convert.pairing import FORMAT_PREFERENCE, FolderPairs  # noqa: E402
from tasks.errors import visible, InputError, system_problem  # noqa: E402
from tasks.write.artifacts import artifact_key  # noqa: E402
from tasks.llm.select import BackendMissing, backend_line, no_model_line, select_backend, spec_of  # noqa: E402


DEFAULT_THREADS = 16
"""Threads of the folder flow's task runner: a task waiting for its inputs holds one, so
there are more than cores; the live calls are bounded separately (in-flight limit)."""


OUTCOME_NAME = "outcome.json"
"""The folder run's :class:`FolderOutcome` as JSON in its output folder: what a sweep that
spread its folders over a work pool reads back (the workers share the output paths)."""


def task_runner(max_concurrency: int = DEFAULT_THREADS, dask_address: str | None = None):
    """The folder flow's task runner: ``max_concurrency`` threads of this process
    (Prefect's ``ThreadPoolTaskRunner`` with futures that answer their state locally,
    :class:`commandline.runners.Threads`: the default), or with ``dask_address`` the Dask
    cluster whose scheduler listens there (prefect-dask's ``DaskTaskRunner``; every
    task's parameters and result then travel pickled). prefect-dask is imported only then."""
    if not dask_address:
        return Threads(max_workers=max(1, max_concurrency))
    from prefect_dask import DaskTaskRunner

    return DaskTaskRunner(address=dask_address)


def on_dask() -> bool:
    """Whether the flow run this is called in hands its tasks to a Dask cluster."""
    from prefect.context import FlowRunContext

    ctx = FlowRunContext.get()
    return ctx is not None and type(ctx.task_runner).__module__.startswith("prefect_dask")


def run_name() -> str:
    """The flow run's name in the Prefect UI: the folder's name."""
    from prefect.runtime import flow_run

    return Path(str(flow_run.parameters.get("folder") or "folder")).name or "folder"


@flow(name="folder", flow_run_name=run_name, log_prints=False, validate_parameters=False,
      task_runner=Threads(max_workers=DEFAULT_THREADS))
def folder_flow(
    folder: str,
    out: str | None = None,
    filter: str | None = None,
    suffixes: list[str] | None = None,
    replies: str | None = None,
    offline: bool = False,
    backend: BackendChoice = BackendChoice.auto,
    model: str | None = None,
    tries: int = 3,
    areas: bool = True,
    base: str | None = None,
    fresh_ocr: bool = False,
    accepted: str | None = None,
    root: str | None = None,
    dask_address: str | None = None,
    in_flight: int | None = None,
) -> FolderOutcome:
    """Convert every sheet of a folder in one house style, with one route B filter for all.

    Returns the :class:`FolderOutcome` (a row per sheet; a failed sheet's row says why) in
    a Completed state, named "Built with failures" when some sheet failed
    (:func:`commandline.ends.built_with_failures`), or a Failed state with one line when ``out``
    is not the run's to write, a path is outside the deployment's root or the folder is missing.

    Args:
        folder: the folder of sheets (each paired with its solutions by name); relative to `base`.
        out: the output folder (default out/<folder name>/ under `base`): a folder per sheet, report.csv, report.parquet, report.json, flags.md, filter.lua.
        filter: the folder's route B Lua filter (default: a saved filter.lua, one the model writes from the first sheet, or the best library filter).
        suffixes: formats to take, e.g. [".tex", ".md"] (default all; a sheet in two formats is taken once, tex first).
        replies: saved replies: a previous output folder of this folder (OUT/<stem>/replies per sheet).
        offline: make no live call at all: saved replies only.
        backend: who answers live model calls: auto (from the environment; with none, an offline run), anthropic, openrouter, openai, claude-code or none.
        model: the model for live calls (default LLM_MODEL, else a current Claude Sonnet).
        tries: calls the route B filter writer may make (default 3).
        areas: propose answer boxes (one model call per part); off skips them.
        base: the folder relative paths resolve against (default: the working folder of the process running the flow).
        fresh_ocr: convert PDFs with Mathpix again even when the OCR cache holds them (a new conversion is billed).
        accepted: the folder's accepted.txt, differences from the export already accepted (default: beside the saved filter, else in the folder).
        root: the folder the run stays inside: a sheet or link leaving it is skipped (default: the folder itself; a sweep passes its corpus root).
        dask_address: hand the sheets' stages to the Dask cluster whose scheduler is at this address (e.g. tcp://10.0.0.5:8786) instead of threads; its workers need the same paths and Prefect server. A deployed run may name only the one fixed in its deployment (SHEET2LAMBDA_DASK_ADDRESS), which it uses when this is empty.
        in_flight: sheets in flight at once, the next started as one ends (default: twice the cores; with a live backend at least twice SHEET2LAMBDA_MAX_IN_FLIGHT).
    """
    try:  # a deployed run's scheduler is the deployment's, never the form's (commandline.dask_fixed)
        dask_address = run_dask_address(dask_address)
        if problem := form_problem(tries=tries, in_flight=in_flight):  # the form's counts, as the options'
            raise InputError("folder", problem)
    except InputError as e:
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    if dask_address and not on_dask():
        # A deployment's task runner is fixed when its run starts: the sheets go to the cluster
        # in one nested run of this flow with the Dask runner (the command line sets it directly).
        # Its state, not its result: the run ends as the nested run did (Built with failures, Failed).
        return folder_flow.with_options(task_runner=task_runner(dask_address=dask_address))(
            folder, out, filter, suffixes, replies, offline, backend, model, tries, areas, base, fresh_ocr=fresh_ocr,
            accepted=accepted, root=root, dask_address=dask_address, in_flight=in_flight, return_state=True)
    t0 = time.monotonic()
    runtime.mark_body("body_started")
    folder, out, filter, replies, accepted, root = (resolve(p, base) for p in (folder, out, filter, replies, accepted,
                                                                              root))
    src = Path(folder)
    out_dir = Path(out) if out else Path(base or ".") / "out" / src.resolve().name
    try:  # a path outside the deployment's root, or no folder: one line, as the document flow ends
        roots = confine({"folder": folder, "out": str(out_dir), "filter": filter, "replies": replies,
                         "accepted": accepted, "root": root}, base)
        if not src.is_dir():
            raise InputError(folder, "no such folder")
    except InputError as e:
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    live = None if offline else select_backend(backend, model)
    spec = spec_of(live)
    say(f"backend    {backend_line(live, offline)}")
    if (line := no_model_line(live, offline, f"in {replies}" if replies else "beside each sheet")) is not None:
        say(line)
    pairs = FolderPairs(src, tuple(suffixes) if suffixes else FORMAT_PREFERENCE)  # each paired as it is started
    with runtime.prefect_call():
        progress = create_progress_artifact(progress=0.0, key=artifact_key(src.name, "folder-progress"),
                                            description=f"sheets of {src.name}")
    try:
        with Bar(len(pairs)) as bar:
            outcome = run_folder(src, out_dir, filter_path=Path(filter) if filter else None,
                                 suffixes=tuple(suffixes) if suffixes else FORMAT_PREFERENCE,
                                 replies=Path(replies) if replies else None, offline=offline, spec=spec, tries=tries,
                                 progress_id=progress, areas=areas, bar=bar,
                                 accepted_file=Path(accepted) if accepted else None, root=Path(root) if root else None,
                                 fresh_ocr=fresh_ocr, in_flight=in_flight, pairs_found=pairs, out_roots=roots)
    except InputError as e:  # --out is not ours to write: one line, no traceback
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    df = folder_report.with_totals(folder_report.frame(outcome.rows))
    with runtime.prefect_call():
        create_table_artifact(key=artifact_key(src.name, "folder-report"), table=folder_report.ui_rows(df, src),
                              description=f"report of {src.name}: a row per sheet, then the total (paths under {src})")
        create_markdown_artifact(key=artifact_key(src.name, "folder-flags"),
                                 markdown=(out_dir / "flags.md").read_text(encoding="utf-8"),
                                 description=f"flags of {src.name}")
    began, since = runtime.run_started(t0)
    try:
        # through --out opened once, checked (attack 10, C32); both or neither (attack13 C43)
        publish_files(out_dir, {"report.json": run_json(outcome.rows, time.monotonic() - began, wall_from=since,
                                                         folder=str(src), filter=outcome.filter,
                                                         skipped=outcome.skipped_links).encode(),
                                OUTCOME_NAME: outcome.model_dump_json(indent=1).encode()}, roots)
    except InputError as e:  # --out moved outside the deployment's root meanwhile: one line
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    say(*short_table(outcome.rows, src))
    say(f"filter     {outcome.filter}")
    if outcome.stale_accepted:
        say("accepted differences that no longer occur: " + ", ".join(outcome.stale_accepted))
    say(f"out        {shown_path(out_dir)}/ (report.csv and report.parquet: every column; report.json, flags.md, "
        "filter.lua, one folder per sheet)")
    flagged = [r for r in outcome.rows if r.outcome == "built" and r.flagged]
    say(folder_next_line(out_dir, [out_dir / Path(r.source).stem for r in flagged]))
    runtime.mark_body("body_ended")
    return built_with_failures(outcome.rows, outcome)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The folder command line (:func:`commandline.options.parser`)."""
    return parser("folder", prog="python -m flows.folder").parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: 0 when every sheet was built, 2 when some sheet failed (the
    others were built), 1 on bad input."""
    return entry.run_command("folder", argv, "python -m flows.folder", _main, "folder run")


def _main(args) -> int:
    suffixes = ["." + s.lstrip(".") for s in args.suffixes] if args.suffixes else None
    flow_ = folder_flow.with_options(task_runner=task_runner(args.max_concurrency, args.dask_address))
    t_flow = time.monotonic()
    with runtime.no_heartbeats():
        state = flow_(args.folder, args.out, args.filter, suffixes, args.replies, args.offline,
                      args.backend, args.model, args.tries, args.areas, dask_address=args.dask_address, fresh_ocr=args.fresh_ocr,
                      in_flight=args.sheets_in_flight, return_state=True)
    if not state.is_completed():
        try:
            state.result()
        except (InputError, BackendMissing, ValueError) as e:
            print(visible(str(e)), file=sys.stderr)
            return 1
        except Exception as e:  # a Failed state the flow returned: its message is the line
            if system_problem(e):  # a file-size limit, a full disk: one line
                print(visible(system_problem(e)), file=sys.stderr)
                return 1
        print(visible(state.message or "the folder run failed"), file=sys.stderr)
        return 1
    outcome = state.result()
    if args.verbose:
        print(*fit_lines(runtime.overhead_line(t_flow), width()), sep="\n")
    return 0 if all(r.outcome == "built" for r in outcome.rows) else 2


if __name__ == "__main__":
    sys.exit(main())
