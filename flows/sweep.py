"""The corpus sweep: every folder under ROOT that holds a sheet, each through the folder
flow, and one combined report (a row per sheet, a row per folder, a grand total).

    python -m flows.sweep ROOT [PATH ...] [--suffix tex ...] [--out DIR] [--offline]
                          [--baseline FILE] [--record-baseline FILE]

It never writes into the corpus (outputs go under ``--out``, default ``out/sweep/``), and a
second run makes no model call (every stage is cached by content). With ``--offline`` and
``--baseline`` it is the gate: it exits 1 when any sheet does worse than the recorded
baseline (not built where it was, more flags, more new content differences).
"""

from __future__ import annotations

import flows.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect import flow  # noqa: E402
from prefect.artifacts import create_markdown_artifact, create_table_artifact  # noqa: E402

from prefect.task_runners import ThreadPoolTaskRunner  # noqa: E402

from flows.folder import DEFAULT_THREADS, run_folder  # noqa: E402
from schemas.folder import FolderOutcome, SheetRow  # noqa: E402
from tasks.check import folder_report  # noqa: E402
from tasks.errors import InputError  # noqa: E402
from tasks.llm.select import backend_line, select_backend, spec_of  # noqa: E402
from tasks.convert.pairing import FORMAT_PREFERENCE, pair_folder  # noqa: E402


def sheet_folders(root: Path, suffixes: tuple[str, ...], skipped: list[str] | None = None) -> list[Path]:
    """Every folder under ``root`` (``root`` included) that holds a sheet, sorted; folders
    whose name starts with ``.`` or ``set_`` (an export) are not entered, nor is a link to a
    folder outside ``root`` (its line is added to ``skipped``)."""
    from tasks.convert.tree import leaves, skipped_line

    found = []
    for d in sorted([root, *[p for p in root.rglob("*") if p.is_dir()]]):
        rel = d.relative_to(root).parts
        if any(part.startswith((".", "set_")) for part in rel):
            continue
        if leaves(d, root):
            if skipped is not None:
                skipped.append(skipped_line(d, root))
            continue
        try:
            if pair_folder(d, suffixes):
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


@flow(name="sweep", log_prints=False, validate_parameters=False,
      task_runner=ThreadPoolTaskRunner(max_workers=DEFAULT_THREADS))
def sweep_flow(
    root: str,
    paths: list[str] | None = None,
    suffixes: list[str] | None = None,
    out: str | None = None,
    offline: bool = False,
    backend: str = "auto",
    model: str | None = None,
    accepted_root: str | None = None,
    areas: bool = True,
) -> list[FolderOutcome]:
    """Run every sheet folder under ``root`` (or only ``paths``) through the folder flow's
    DAG; write ``report.csv``/``report.parquet`` (sheets, folder totals, grand total).
    ``accepted_root`` holds ``<folder under root>/accepted.txt`` files kept outside the
    corpus (the baseline's folder); ``areas`` False skips the answer boxes."""
    base = Path(root)
    if not base.is_dir():
        raise InputError(root, "no such folder")
    sfx = tuple(suffixes) if suffixes else FORMAT_PREFERENCE
    out_dir = Path(out) if out else Path("out") / "sweep"
    if out_dir.resolve().is_relative_to(base.resolve()):
        raise InputError(str(out_dir), "the sweep never writes into the corpus: choose --out outside it")
    skipped: list[str] = []
    folders = [Path(p) for p in paths] if paths else sheet_folders(base, sfx, skipped)
    for line in skipped:
        print(f"skipped    {line}")
    live = None if offline else select_backend(backend, model)
    spec = spec_of(live)
    print(f"backend    {backend_line(live, offline)}")
    total = sum(len(pair_folder(f, sfx)) for f in folders)  # (links leaving the root are skipped later)
    done = [0]
    outcomes = []
    for f in folders:
        rel = f.resolve().relative_to(base.resolve()) if f.resolve().is_relative_to(base.resolve()) else Path(f.name)
        kept = Path(accepted_root) / rel / "accepted.txt" if accepted_root else None
        outcomes.append(run_folder(f, out_dir / rel, suffixes=sfx, offline=offline, spec=spec,
                                   done=done, total=total,
                                   accepted_file=kept if kept is not None and kept.is_file() else None,
                                   areas=areas, root=base if f.resolve().is_relative_to(base.resolve()) else f))
    rows = [r for o in outcomes for r in o.rows]
    df = folder_report.with_totals(folder_report.frame(rows), by="folder")
    folder_report.write(df, out_dir)
    (out_dir / "baseline.json").write_text(json.dumps(baseline_of(rows, base), indent=1, sort_keys=True), encoding="utf-8")
    create_table_artifact(key="sweep-report", table=df.to_dicts(), description=f"sweep of {base}")
    stale = [f"{o.folder}: {k}" for o in outcomes for k in o.stale_accepted]
    create_markdown_artifact(key="sweep-summary", markdown="\n".join(
        [f"# Sweep of {base}", "", f"{len(folders)} folders, {len(rows)} sheets"] + [f"- stale accepted: {s}" for s in stale]))
    print(folder_report.table(df))
    for s in stale:
        print(f"accepted difference that no longer occurs: {s}")
    print(f"out        {out_dir}/ (report.csv, report.parquet, baseline.json, one folder per corpus folder)")
    return outcomes


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m flows.sweep", description="Convert every sheet folder of a corpus.")
    p.add_argument("root")
    p.add_argument("paths", nargs="*", help="only these folders (under ROOT)")
    p.add_argument("--suffix", action="append", dest="suffixes", help="formats to take (repeatable)")
    p.add_argument("--out", help="output folder (default out/sweep/); never inside ROOT")
    p.add_argument("--offline", action="store_true", help="make no live call")
    p.add_argument("--backend", default="auto", choices=["auto", "anthropic", "openrouter", "openai", "claude-code", "none"])
    p.add_argument("--model")
    p.add_argument("--max-concurrency", type=int, default=DEFAULT_THREADS,
                   help=f"stage tasks run at once (default {DEFAULT_THREADS}); live calls are bounded by "
                        "SHEET2LAMBDA_MAX_IN_FLIGHT")
    p.add_argument("--baseline", help="the gate: exit 1 when any sheet does worse than this recorded baseline "
                   "(accepted differences: <baseline folder>/<corpus folder>/accepted.txt)")
    p.add_argument("--record-baseline", help="write this run's baseline to FILE")
    p.add_argument("--no-areas", dest="areas", action="store_false", help="skip the answer boxes")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: 1 on bad input or when the gate fails, else 0."""
    args = parse_args(argv)
    suffixes = ["." + s.lstrip(".") for s in args.suffixes] if args.suffixes else None
    baseline = None
    if args.baseline:
        try:
            baseline = json.loads(Path(args.baseline).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            print(f"{args.baseline}: cannot read the baseline ({e.__class__.__name__})", file=sys.stderr)
            return 1
    with runtime.no_heartbeats():
        accepted_root = str(Path(args.baseline or args.record_baseline).parent) if (args.baseline or args.record_baseline) else None
        flow_ = sweep_flow.with_options(task_runner=ThreadPoolTaskRunner(max_workers=max(1, args.max_concurrency)))
        state = flow_(args.root, args.paths or None, suffixes, args.out, args.offline, args.backend,
                           args.model, accepted_root, args.areas, return_state=True)
    try:
        outcomes = state.result()
    except Exception as e:
        print(str(e).splitlines()[0] if str(e) else type(e).__name__, file=sys.stderr)
        return 1
    rows = [r for o in outcomes for r in o.rows]
    if args.record_baseline:
        Path(args.record_baseline).write_text(
            json.dumps(baseline_of(rows, Path(args.root)), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"baseline   recorded in {args.record_baseline}")
    if baseline is not None:
        worse = gate(rows, Path(args.root), baseline)
        if worse:
            print("gate       FAILED: " + str(len(worse)) + " sheets do worse than the baseline", file=sys.stderr)
            for line in worse:
                print(f"  {line}", file=sys.stderr)
            return 1
        print(f"gate       passed: no sheet does worse than {args.baseline}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
