"""The corpus sweep: every folder under ROOT that holds a sheet, each through the folder
flow, and one combined report (a row per sheet, a row per folder, a grand total).

    python -m flows.sweep ROOT [PATH ...] [--suffix tex ...] [--out DIR] [--offline]
                          [--baseline FILE] [--record-baseline FILE]
                          [--pool NAME] [--dask-address ADDR]

It never writes into the corpus (outputs go under ``--out``, default ``out/sweep/``), and a
second run makes no model call (every stage is cached by content): it says how many sheets
are new, changed or unchanged since the last sweep into the same ``--out``, how many failed,
and for how many the stages ran (:mod:`tasks.check.changes`). With ``--offline`` and
``--baseline`` it is the gate: it exits 1 when any sheet does worse than the recorded
baseline (not built where it was, more flags, more new content differences).

By default every folder runs in this process, one after another, each folder's sheets at
once on its threads. ``--pool NAME`` spreads the folders over the workers of a Prefect work
pool instead: each folder is a run of the folder deployment on that pool
(``deployments/prefect.yaml``), all started at once, and this run gathers their outcomes
(``outcome.json`` in each folder's output folder: workers and sweep share the paths) into
the one report. ``--dask-address`` hands each folder's sheets to a Dask cluster.
"""

from __future__ import annotations

import commandline.entry as entry
import commandline.runtime as runtime

if __name__ == "__main__":
    # --help, a bad option or a missing folder answer before Prefect is imported (commandline/options.py).
    entry.entry("sweep", prog="python -m flows.sweep")
runtime.quiet_environment()

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect import flow  # noqa: E402
from prefect.artifacts import create_markdown_artifact, create_table_artifact  # noqa: E402
from commandline.confine import confine  # noqa: E402
from commandline.dask_fixed import run_dask_address  # noqa: E402
from commandline.ends import built_with_failures, failed as failed_state  # noqa: E402
from flows.pool import DEFAULT_WAIT_MINUTES, PoolTimeout, run_on_pool  # noqa: E402

from commandline.runners import Threads  # noqa: E402

from flows.folder import DEFAULT_THREADS, on_dask, run_folder, task_runner  # noqa: E402
from tasks.write.publish import make_folders  # noqa: E402
from tasks.check.folder_report import run_json  # noqa: E402
from tasks.check.sweep_files import GATE_LINES, gate_message, publish_end, read_baseline  # noqa: E402
from commandline.logs import say  # noqa: E402
from commandline.options import form_problem, parser, resolve, shown_name, under_root, utf8_name  # noqa: E402
from commandline.out_paths import (  # noqa: E402
    OUTPUT_MANIFEST, foreign_manifest, holds_outputs, inside as lies_inside, out_above, out_inside, out_over_inputs)
from commandline.terminal import Bar, folder_next_line, short_table  # noqa: E402
from schemas.llm import BackendChoice  # noqa: E402
from schemas.folder import FolderOutcome, SheetRow  # noqa: E402
from tasks.check import changes as sweep_changes, folder_report  # noqa: E402
from tasks.errors import visible, InputError, system_problem  # noqa: E402
from tasks.write.artifacts import artifact_key, as_written  # noqa: E402
from tasks.write.fence import fenced  # noqa: E402
from tasks.write.publish import write_atomic  # noqa: E402
from tasks.write.outputs import FOLDER_OUTPUT_NAMES, claim, taken_by_run  # noqa: E402
from tasks.llm.select import backend_line, no_model_line, select_backend, spec_of  # noqa: E402
from tasks.convert.pairing import FORMAT_PREFERENCE, FolderPairs  # noqa: E402


def sheet_folders(root: Path, suffixes: tuple[str, ...], skipped: list[str] | None = None) -> list[Path]:
    """Every folder under ``root`` (``root`` included) that holds a sheet, sorted; folders
    whose name starts with ``.`` or ``set_`` (an export) are not entered, nor is a link to a
    folder outside ``root`` (its line is added to ``skipped``), nor any folder reached by a link
    (:func:`tasks.convert.tree.real_folders`: each real folder is swept once), nor a previous run's output
    folder (:func:`commandline.out_paths.holds_outputs`: its flags.md and source.md are not sheets; a
    line too)."""
    from tasks.convert.tree import leaves, real_folders, skipped_line

    found = []
    for d in sorted(real_folders(root, skipped)):
        rel = d.relative_to(root).parts
        if any(part.startswith((".", "set_")) for part in rel):
            continue
        if leaves(d, root):
            if skipped is not None:
                skipped.append(skipped_line(d, root))
            continue
        if not utf8_name(d):
            if skipped is not None:
                skipped.append(f"{shown_name(d)}: the name is not UTF-8: skipped")
            continue
        if skipped is not None and (planted := foreign_manifest(d)) is not None:
            skipped.append(planted)  # another user's manifest: a line, and the course is read
        if any(holds_outputs(root.joinpath(*rel[:i + 1])) for i in range(len(rel))):
            if skipped is not None and holds_outputs(d):  # one line for the output folder, none per sheet in it
                skipped.append(f"{d}: a previous run's outputs ({OUTPUT_MANIFEST}), not sheets: skipped")
            continue
        try:
            if next(iter(FolderPairs(d, suffixes)), None) is not None:  # one sheet is enough
                found.append(d)
        except OSError:
            continue
    return found


def baseline_of(rows: list[SheetRow], root: Path) -> dict[str, dict]:
    """What the gate records per sheet (keyed by its path under the corpus root)."""
    return {
        str(Path(r.source).resolve().relative_to(root.resolve())): {
            "built": r.outcome == "built",
            "flagged": r.flagged,
            "new_differences": r.new_differences or 0,
            "boxes_matched": r.boxes_matched or 0,
        }
        for r in rows
    }


def gate(rows: list[SheetRow], root: Path, baseline: dict[str, dict]) -> list[str]:
    """The ways this run does worse than ``baseline``: one line per sheet and measure
    (fewer sheets built, more flags, more new content differences, fewer answer boxes
    matching the export's). Empty: the gate passes."""
    now = baseline_of(rows, root)
    worse = []
    for sheet, was in sorted(baseline.items()):
        cur = now.get(sheet)
        if cur is None:
            worse.append(f"{sheet}: in the baseline but not in this run")
            continue
        if was["built"] and not cur["built"]:
            worse.append(f"{sheet}: built in the baseline, not now")
        if cur["flagged"] > was["flagged"]:
            worse.append(f"{sheet}: {cur['flagged']} flagged fields, baseline {was['flagged']}")
        if cur["new_differences"] > was["new_differences"]:
            worse.append(f"{sheet}: {cur['new_differences']} new content differences, baseline {was['new_differences']}")
        if cur["boxes_matched"] < was.get("boxes_matched", 0):
            worse.append(f"{sheet}: {cur['boxes_matched']} answer boxes matched, baseline {was['boxes_matched']}")
    return worse


def gate_scope(baseline: dict[str, dict], folders: list[str]) -> tuple[dict[str, dict], str]:
    """The part of ``baseline`` a sweep of only ``folders`` (paths under the corpus root,
    ``.`` for the root itself) can be compared with: the sheets directly in those folders (a
    folder run reads its own sheets, not its subfolders'). Returns that part and the line
    ``gate: N of M baseline sheets in this run; others not compared``."""
    wanted = {Path(f) for f in folders}
    kept = {sheet: was for sheet, was in baseline.items() if Path(sheet).parent in wanted}
    return kept, f"gate       {len(kept)} of {len(baseline)} baseline sheets in this run; others not compared"


def run_name() -> str:
    """The flow run's name in the Prefect UI: ``sweep of`` the corpus folder's name."""
    from prefect.runtime import flow_run

    return f"sweep of {Path(str(flow_run.parameters.get('root') or 'corpus')).name}"


def baseline_target_problem(target: Path, corpus: Path, out_dir: Path) -> str | None:
    """Why ``--record-baseline`` may not write ``target`` (one line), else ``None``: never
    inside the corpus ROOT (a sweep never writes into it: a sheet or a course's file would be
    replaced), nor a file the sweep writes in ``--out`` (:data:`FOLDER_OUTPUT_NAMES`, its manifest)
    or inside a folder's outputs there (attack 9, break5: a sheet, the corpus's own baseline.json
    and the sweep's report.json were overwritten)."""
    if lies_inside(target, corpus):
        return ("--record-baseline is inside the corpus ROOT, which a sweep never writes into: "
                "give a file outside it")
    if lies_inside(target, out_dir):
        rel = target.resolve().relative_to(out_dir.resolve()).parts
        if len(rel) != 1 or rel[0] in FOLDER_OUTPUT_NAMES or rel[0] == OUTPUT_MANIFEST:
            return ("--record-baseline names a file the sweep writes in --out (its reports, or a folder's "
                    "outputs): give a file of its own name, or one outside --out")
    return None


@flow(name="sweep", flow_run_name=run_name, log_prints=False, validate_parameters=False,
      task_runner=Threads(max_workers=DEFAULT_THREADS))
def sweep_flow(
    root: str,
    paths: list[str] | None = None,
    suffixes: list[str] | None = None,
    out: str | None = None,
    offline: bool = False,
    backend: BackendChoice = BackendChoice.auto,
    model: str | None = None,
    accepted_root: str | None = None,
    areas: bool = True,
    baseline: str | None = None,
    record_baseline: str | None = None,
    base: str | None = None,
    fresh_ocr: bool = False,
    pool: str | None = None,
    dask_address: str | None = None,
    pool_wait: float = DEFAULT_WAIT_MINUTES,
    in_flight: int | None = None,
) -> list[FolderOutcome]:
    """Run every sheet folder of a corpus through the folder flow's DAG, with one report.

    Writes ``report.csv``/``report.parquet`` (sheets, folder totals, grand total),
    ``report.json`` (the run's wall time) and ``baseline.json``. With ``baseline`` the run
    is the gate: it ends Failed (message ``gate FAILED: …``, one line per regression;
    :func:`commandline.ends.failed`) when any sheet does worse than the recorded baseline. Else it
    ends Completed holding the outcomes, named "Built with failures" when some sheet failed
    (:func:`commandline.ends.built_with_failures`).

    Args:
        root: the corpus: every folder under it (itself included) that holds a sheet is run; relative to `base`.
        paths: only these folders (under root).
        suffixes: formats to take, e.g. [".tex", ".md"] (default all).
        out: the output folder (default out/sweep/ under `base`); never inside root.
        offline: make no live call at all: saved replies only.
        backend: who answers live model calls: auto (from the environment; with none, an offline run), anthropic, openrouter, openai, claude-code or none.
        model: the model for live calls (default LLM_MODEL, else a current Claude Sonnet).
        accepted_root: where <folder under root>/accepted.txt files live outside the corpus (default: the baseline's folder).
        areas: propose answer boxes (one model call per part); off skips them.
        baseline: the gate: a recorded baseline.json; the run fails when any sheet does worse (fewer built, more flags, more new differences, fewer boxes matched).
        record_baseline: write this run's baseline to this file.
        base: the folder relative paths resolve against (default: the working folder of the process running the flow).
        fresh_ocr: convert PDFs with Mathpix again even when the OCR cache holds them (a new conversion is billed).
        pool: spread the folders over this work pool's workers, each folder a run of the folder deployment on it (default: every folder in this run, one after another).
        dask_address: hand each folder's sheets to the Dask cluster whose scheduler is at this address instead of threads. A deployed run may name only the one fixed in its deployment (SHEET2LAMBDA_DASK_ADDRESS), which it uses when this is empty.
        pool_wait: with `pool`, minutes to wait for a worker to take a folder run (none of them running) before the sweep gives up, cancels its folder runs and fails (default 10).
        in_flight: sheets of a folder in flight at once, the next started as one ends (default: twice the cores; with a live backend at least twice SHEET2LAMBDA_MAX_IN_FLIGHT).
    """
    try:  # a deployed run's scheduler is the deployment's, never the form's (commandline.dask_fixed)
        dask_address = run_dask_address(dask_address)
        if problem := form_problem(in_flight=in_flight, pool_wait=pool_wait):  # as the options'
            raise InputError("sweep", problem)
    except InputError as e:
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    if dask_address and not pool and not on_dask():
        # A deployment's task runner is fixed when its run starts: one nested run with the Dask runner.
        return sweep_flow.with_options(task_runner=task_runner(dask_address=dask_address))(
            root, paths, suffixes, out, offline, backend, model, accepted_root, areas, baseline, record_baseline,
            base, fresh_ocr=fresh_ocr, pool=pool, dask_address=dask_address, pool_wait=pool_wait, in_flight=in_flight,
            return_state=True)
    t0 = time.monotonic()
    root, out, accepted_root, baseline, record_baseline = (resolve(p, base) for p in (
        root, out, accepted_root, baseline, record_baseline))
    try:  # a path outside the deployment's root, a bad baseline or --out: one line, as the document flow ends
        roots = confine({"root": root, "out": out, "accepted_root": accepted_root, "baseline": baseline,
                         "record_baseline": record_baseline}, base)
        paths = [under_root(root, p, base) for p in paths] if paths else None  # folder arguments are under root
        if accepted_root is None and (baseline or record_baseline):
            accepted_root = str(Path(baseline or record_baseline).parent)
        recorded = None
        if baseline:
            recorded = read_baseline(baseline)  # size-bounded, validated (attack15 C09b)
        base_dir = Path(root)
        if not base_dir.is_dir():
            raise InputError(root, "no such folder")
        sfx = tuple(suffixes) if suffixes else FORMAT_PREFERENCE
        out_dir = Path(out) if out else Path(base or ".") / "out" / "sweep"
        if lies_inside(out_dir, base_dir):
            raise InputError(str(out_dir), out_inside(out is not None, root, "the corpus ROOT"))
        if lies_inside(base_dir, out_dir):
            raise InputError(str(out_dir), out_above(out is not None, root, "the corpus ROOT"))
        if record_baseline and (why := baseline_target_problem(Path(record_baseline), base_dir, out_dir)):
            raise InputError(record_baseline, why)
        overlap = out_over_inputs(out_dir, {}, {"--baseline": baseline})
        if overlap:  # its folders' outputs among the baseline's accepted.txt files
            raise InputError(str(out_dir), overlap)
        for f in paths or []:
            if not Path(f).is_dir():
                raise InputError(f, f"no such folder under {root}")
            if not lies_inside(f, base_dir):
                raise InputError(f, f"not under {root} (a sweep runs folders of its ROOT only)")
    except InputError as e:
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    make_folders(out_dir)  # not shared-writable whatever the umask (round 19)
    try:
        claim(out_dir, FOLDER_OUTPUT_NAMES, str(base_dir))  # a user's report.csv in --out is never overwritten
    except InputError as e:
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    damaged: list[str] = []
    previous = sweep_changes.read_record(out_dir, damaged)  # what each sheet read at the last sweep into out
    for line in damaged:
        say(f"warning    {line}")
    skipped: list[str] = []
    folders = [Path(p) for p in paths] if paths else sheet_folders(base_dir, sfx, skipped)
    for f in list(folders):  # a course folder named report.csv would take out/report.csv/: that course alone is skipped
        rel = f.resolve().relative_to(base_dir.resolve()).parts if lies_inside(f, base_dir) else (f.name,)
        if rel and (taken := taken_by_run(rel[0], "its output folder")):
            skipped.append(f"{f}: {taken}")
            folders.remove(f)
    for line in skipped:
        say(f"skipped    {line}")
    live = None if offline else select_backend(backend, model)
    spec = spec_of(live)
    say(f"backend    {backend_line(live, offline)}")
    if (line := no_model_line(live, offline, "beside each sheet")) is not None:
        say(line)
    # Each folder counted from its names; its sheets paired as its run starts them (FolderPairs).
    paired = {f: FolderPairs(f, sfx) for f in folders}
    total = sum(map(len, paired.values()))  # (links leaving the root are skipped later)
    done, count = [0], [total]  # each folder's run lowers count by the sheets it skips
    outcomes = []
    jobs = []
    for f in folders:
        inside = f.resolve().is_relative_to(base_dir.resolve())
        rel = f.resolve().relative_to(base_dir.resolve()) if inside else Path(f.name)
        kept = Path(accepted_root) / rel / "accepted.txt" if accepted_root else None
        jobs.append((f, out_dir / rel, kept if kept is not None and kept.is_file() else None,
                     base_dir if inside else f))
    with Bar(total) as bar:
        if pool:
            # Absolute paths: a worker's working folder is not this run's.
            pool_jobs = [(f, o, {
                "folder": str(f.resolve()), "out": str(o.resolve()), "suffixes": list(sfx), "offline": offline,
                "backend": backend, "model": model, "areas": areas,
                "accepted": str(kept.resolve()) if kept else None, "root": str(r.resolve()),
                "dask_address": dask_address, "fresh_ocr": fresh_ocr, "in_flight": in_flight}) for f, o, kept, r in jobs]
            try:
                outcomes = run_on_pool(pool, pool_jobs, sfx, bar, wait_minutes=pool_wait)
            except PoolTimeout as e:  # no worker: one line; the folder runs it created are cancelled
                say(str(e), echo=False, level=logging.ERROR)
                return failed_state(str(e))
        for f, o, kept, r in ([] if pool else jobs):
            try:
                outcomes.append(run_folder(f, o, suffixes=sfx, offline=offline, spec=spec, done=done, total=count,
                                           pairs_found=paired[f],
                                           accepted_file=kept, areas=areas, root=r, bar=bar, fresh_ocr=fresh_ocr,
                                           in_flight=in_flight, out_roots=roots))
            except InputError as e:  # its output folder is not ours to write: the other folders go on
                skipped.append(str(e))
                say(f"skipped    {e}")
    rows = [r for o in outcomes for r in o.rows]
    changes, record = sweep_changes.compare(rows, base_dir, previous)
    if paths:  # a sweep of some folders keeps what the others read last time
        record = {**(previous or {}), **record}
    df = folder_report.with_totals(folder_report.frame(rows), by="folder")
    create_table_artifact(key=artifact_key(base_dir.resolve().name, "sweep-report"),
                          table=folder_report.ui_rows(df, base_dir), description=f"sweep of {base_dir}")
    stale = [f"{o.folder}: {k}" for o in outcomes for k in o.stale_accepted]
    if recorded is not None and paths:  # a sweep of some folders is gated on their sheets only
        recorded, scope = gate_scope(recorded, [str(j[0].resolve().relative_to(base_dir.resolve())) for j in jobs])
        say(scope)
    worse = gate(rows, base_dir, recorded) if recorded is not None else []
    said = short_table(rows, base_dir) + [""] + [f"stale accepted: {s}" for s in stale] + (  # sheets' and
        [f"gate FAILED: {w}" for w in worse[:GATE_LINES]] if recorded is not None and worse else  # files' names:
        ([f"gate passed against {baseline}"] if recorded is not None else []))  # fenced (attack17 C20)
    create_markdown_artifact(key=artifact_key(base_dir.resolve().name, "sweep-summary"), markdown="\n".join(
        [f"# Sweep of {as_written(str(base_dir))}", "", f"{len(folders)} folders, {len(rows)} sheets", "",
         as_written(changes.line().split(None, 1)[1]), "", fenced("\n".join(said), "")]))
    began, since = runtime.run_started(t0)
    try:
        publish_end(out_dir, df, record, baseline_of(rows, base_dir), run_json(  # all or nothing (attack15 C29)
            rows, time.monotonic() - began, wall_from=since, root=str(base_dir), folders=len(folders),
            gate=None if recorded is None else ("failed" if worse else "passed"), changes=changes.model_dump(),
            skipped=skipped + [line for o in outcomes for line in o.skipped_links]), roots)
    except InputError as e:  # --out moved outside the deployment's root meanwhile, or a full disk: one line
        say(str(e), echo=False, level=logging.ERROR)
        return failed_state(str(e))
    say(*short_table(rows, base_dir))
    say(changes.line())
    for s in stale:
        say(f"accepted difference that no longer occurs: {s}")
    say(f"out        {visible(out_dir)}/ (report.csv and report.parquet: every column; report.json, baseline.json, one folder "
        "per corpus folder)")
    if record_baseline:
        try:  # whole or not at all: a full disk is one line, the old file kept (attack15 C29)
            write_atomic(Path(record_baseline), json.dumps(baseline_of(rows, base_dir), indent=1, sort_keys=True) + "\n")
        except InputError as e:
            say(str(e), echo=False, level=logging.ERROR)
            return failed_state(str(e))
        say(f"baseline   recorded in {record_baseline}")
    next_step = folder_next_line(out_dir, [Path(o.out) / Path(r.source).stem for o in outcomes for r in o.rows
                                           if r.outcome == "built" and r.flagged], "each folder's flags.md",
                                 "<folder>/<sheet>")
    if recorded is not None:
        if worse:
            message = gate_message(worse)  # at most GATE_LINES sheets listed (attack15 C09b)
            say(message, echo=False, level=logging.ERROR)
            return failed_state(message)
        say(f"gate       passed: no sheet does worse than {visible(baseline)}")
    say(next_step)
    return built_with_failures(rows, outcomes)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The sweep command line (:func:`commandline.options.parser`)."""
    return parser("sweep", prog="python -m flows.sweep").parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: 1 on bad input or when the gate fails, 2 when some sheet
    failed (the others were built), else 0."""
    return entry.run_command("sweep", argv, "python -m flows.sweep", _main, "sweep")


def _main(args) -> int:
    suffixes = ["." + s.lstrip(".") for s in args.suffixes] if args.suffixes else None
    with runtime.no_heartbeats():
        on_cluster = args.dask_address if not args.pool else None  # with a pool, each folder run uses it
        flow_ = sweep_flow.with_options(task_runner=task_runner(args.max_concurrency, on_cluster))
        state = flow_(args.root, args.paths or None, suffixes, args.out, args.offline, args.backend,
                      args.model, None, args.areas, args.baseline, args.record_baseline, pool=args.pool, fresh_ocr=args.fresh_ocr,
                      dask_address=args.dask_address, pool_wait=args.pool_wait, in_flight=args.sheets_in_flight,
                      return_state=True)
    if state.is_failed() and (state.message or "").startswith("gate"):
        print(visible(state.message), file=sys.stderr)
        return 1
    try:
        outcomes = state.result()
    except Exception as e:
        print(visible(system_problem(e) or (str(e).splitlines()[0] if str(e) else type(e).__name__)), file=sys.stderr)
        return 1
    rows = [r for o in outcomes for r in o.rows]
    return 0 if all(r.outcome == "built" for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
